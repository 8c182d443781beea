//! Preset constants of the EIP-6800 consensus-spec witness containers
//! (consensus-specs `specs/_features/eip6800/beacon-chain.md`, "Preset").

/// Maximum number of stems in `state_diff`, `other_stems` and `depth_extension_present` (2^16).
pub const MAX_STEMS: usize = 1 << 16;

/// Maximum commitments per stem on a proof path: 31 inner nodes plus C1 and C2.
pub const MAX_COMMITMENTS_PER_STEM: usize = 33;

/// Maximum length of `commitments_by_path`: `MAX_STEMS * MAX_COMMITMENTS_PER_STEM`.
pub const MAX_COMMITMENTS: usize = MAX_STEMS * MAX_COMMITMENTS_PER_STEM;

/// Width of a Verkle node, and so the maximum number of suffix diffs per stem.
pub const VERKLE_WIDTH: usize = 256;

/// Number of rounds of the IPA proof (`log2(VERKLE_WIDTH)`): the length of `cl` and `cr`.
pub const IPA_PROOF_DEPTH: usize = 8;

/// Length of a stem (`Bytes31`).
pub const STEM_LEN: usize = 31;

/// Length of a value, a group element (`BanderwagonGroupElement`) or a scalar
/// (`BanderwagonFieldElement`): `Bytes32`.
pub const BYTES32_LEN: usize = 32;

/// Length of an SSZ `IPAProof`: `cl ‖ cr ‖ final_evaluation` = 8·32 + 8·32 + 32.
pub const IPA_PROOF_LEN: usize = 2 * IPA_PROOF_DEPTH * BYTES32_LEN + BYTES32_LEN;

/// Length of the multiproof encoding handed to `ipa`: `D ‖ L0..L7 ‖ R0..R7 ‖ a` (a little-endian).
pub const MULTIPROOF_LEN: usize = BYTES32_LEN + IPA_PROOF_LEN;

/// Extension status (low 3 bits of a `depth_extension_present` byte): the stem is absent and
/// its slot in the parent internal node is empty (go-verkle `extStatusAbsentEmpty`).
pub const EXT_STATUS_ABSENT_EMPTY: u8 = 0;

/// Extension status: the stem is absent and another stem's leaf sits on its path
/// (go-verkle `extStatusAbsentOther`).
pub const EXT_STATUS_ABSENT_OTHER: u8 = 1;

/// Extension status: the stem is present in the tree (go-verkle `extStatusPresent`).
pub const EXT_STATUS_PRESENT: u8 = 2;
