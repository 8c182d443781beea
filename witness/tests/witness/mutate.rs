//! Seeded mutations of real execution witnesses, for `mutants.rs`.
//!
//! Three families: byte-level mutants of the SSZ encoding ([`ssz_mutant`]), structural
//! mutants of the owned witness ([`structural_mutant`]) and one-hex-digit mutants of the JSON
//! text ([`json_mutant`]). Each is a pure function of a [`Rng`] seeded from the mutant's
//! number, so a mutant is reproduced from its seed alone. [`ssz_layout`] says where the SSZ
//! encoding keeps its offsets and union selectors, the fields the byte-level mutants aim at.

use banderwagon::arith::PrimeField;
use banderwagon::Fr;
use witness::owned::{OwnedExecutionWitness, OwnedStemStateDiff, OwnedSuffixStateDiff};

/// SplitMix64: small, fast and the same on every platform and with every version of any
/// crate, so a mutant's seed reproduces it anywhere.
pub struct Rng(u64);

impl Rng {
    /// The generator for mutant `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x6d75_7461_6e74_7321)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A random byte.
    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// `N` random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.byte();
        }
        out
    }

    /// A random element, `None` for an empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.below(items.len()))
    }

    /// A random index of `0..n` weighted by `cumulative` (running sums of weights).
    pub fn weighted(&mut self, cumulative: &[u64]) -> usize {
        let total = cumulative.last().copied().unwrap_or(0);
        if total == 0 {
            return 0;
        }
        let x = self.next_u64() % total;
        cumulative.partition_point(|&c| c <= x)
    }
}

/// A 4-byte little-endian offset of the SSZ encoding.
#[derive(Clone, Debug)]
pub struct OffsetField {
    /// Absolute position of its 4 bytes.
    pub at: usize,
    /// Length of the container or list it points into (the bound an offset must respect).
    pub container_len: usize,
    /// What it is, in the spec's words.
    pub name: String,
}

/// Where the SSZ encoding of a witness keeps its offsets and union selectors
/// (`spec/WIRE.md`, "SSZ").
#[derive(Clone, Debug, Default)]
pub struct SszLayout {
    /// Every offset field.
    pub offsets: Vec<OffsetField>,
    /// Every `Union[None, Bytes32]` selector byte: position and name.
    pub selectors: Vec<(usize, String)>,
    /// Absolute start of the `VerkleProof` container.
    pub proof_at: usize,
    /// Length of the whole encoding.
    pub len: usize,
}

const STEM_LEN: usize = 31;
/// `VerkleProof` fixed part: three offsets, `d`, the 544-byte IPA proof.
const PROOF_FIXED: usize = 3 * 4 + 32 + 544;

fn union_len(v: &Option<[u8; 32]>) -> usize {
    if v.is_some() {
        33
    } else {
        1
    }
}

fn suffix_diff_len(d: &OwnedSuffixStateDiff) -> usize {
    1 + 4 + 4 + union_len(&d.current_value) + union_len(&d.new_value)
}

fn stem_diff_len(s: &OwnedStemStateDiff) -> usize {
    STEM_LEN
        + 4
        + s.suffix_diffs
            .iter()
            .map(|d| 4 + suffix_diff_len(d))
            .sum::<usize>()
}

/// The layout of `w`'s SSZ encoding, worked out from the container definitions (not read
/// back from the encoder), so that a test can hold the two against each other.
pub fn ssz_layout(w: &OwnedExecutionWitness) -> SszLayout {
    let vp = &w.verkle_proof;
    let state_diff_len: usize = w.state_diff.iter().map(|s| 4 + stem_diff_len(s)).sum();
    let proof_len = PROOF_FIXED
        + STEM_LEN * vp.other_stems.len()
        + vp.depth_extension_present.len()
        + 32 * vp.commitments_by_path.len();
    let len = 8 + state_diff_len + proof_len;
    let mut out = SszLayout {
        len,
        proof_at: 8 + state_diff_len,
        ..SszLayout::default()
    };
    let mut offset = |at: usize, container_len: usize, name: String| {
        out.offsets.push(OffsetField {
            at,
            container_len,
            name,
        })
    };
    offset(0, len, "ExecutionWitness.state_diff".into());
    offset(4, len, "ExecutionWitness.verkle_proof".into());
    let list_at = 8;
    for i in 0..w.state_diff.len() {
        offset(
            list_at + 4 * i,
            state_diff_len,
            format!("state_diff offset[{i}]"),
        );
    }
    let mut selectors = Vec::new();
    let mut elem_at = list_at + 4 * w.state_diff.len();
    for (i, s) in w.state_diff.iter().enumerate() {
        let elem_len = stem_diff_len(s);
        offset(
            elem_at + STEM_LEN,
            elem_len,
            format!("state_diff[{i}].suffix_diffs"),
        );
        let diffs_at = elem_at + STEM_LEN + 4;
        for j in 0..s.suffix_diffs.len() {
            offset(
                diffs_at + 4 * j,
                elem_len - STEM_LEN - 4,
                format!("state_diff[{i}].suffix_diffs offset[{j}]"),
            );
        }
        let mut d_at = diffs_at + 4 * s.suffix_diffs.len();
        for (j, d) in s.suffix_diffs.iter().enumerate() {
            let d_len = suffix_diff_len(d);
            let name = |field: &str| format!("state_diff[{i}].suffix_diffs[{j}].{field}");
            offset(d_at + 1, d_len, name("current_value"));
            offset(d_at + 5, d_len, name("new_value"));
            selectors.push((d_at + 9, name("current_value selector")));
            selectors.push((
                d_at + 9 + union_len(&d.current_value),
                name("new_value selector"),
            ));
            d_at += d_len;
        }
        elem_at += elem_len;
    }
    let proof_at = 8 + state_diff_len;
    offset(proof_at, proof_len, "verkle_proof.other_stems".into());
    offset(
        proof_at + 4,
        proof_len,
        "verkle_proof.depth_extension_present".into(),
    );
    offset(
        proof_at + 8,
        proof_len,
        "verkle_proof.commitments_by_path".into(),
    );
    out.selectors = selectors;
    out
}

/// One mutation: a short kind name (for the summary) and what exactly was done.
pub struct Mutation<T> {
    /// The mutation's kind, e.g. `"bit_flip"`.
    pub kind: &'static str,
    /// What was changed, and where.
    pub description: String,
    /// The mutated input.
    pub value: T,
}

/// The byte-level mutant kinds, in the order [`ssz_mutant`] draws them.
pub const SSZ_KINDS: [&str; 8] = [
    "bit_flip",
    "byte_set",
    "truncate",
    "extend",
    "word_copy",
    "word_swap",
    "offset",
    "selector",
];

/// A byte-level mutant of the SSZ encoding `ssz`, whose layout is `layout`.
pub fn ssz_mutant(rng: &mut Rng, ssz: &[u8], layout: &SszLayout) -> Mutation<Vec<u8>> {
    let mut b = ssz.to_vec();
    let n = b.len();
    let kind = SSZ_KINDS[rng.below(SSZ_KINDS.len())];
    let description = match kind {
        "bit_flip" => {
            let at = rng.below(n);
            let bit = rng.below(8);
            b[at] ^= 1 << bit;
            format!("bit {bit} of byte {at} flipped")
        }
        "byte_set" => {
            let at = rng.below(n);
            let old = b[at];
            let v = match rng.below(6) {
                0 => 0,
                1 => 0xff,
                2 => 0x80,
                3 => old.wrapping_add(1),
                4 => old.wrapping_sub(1),
                _ => rng.byte(),
            };
            b[at] = v;
            format!("byte {at} set from {old:#04x} to {v:#04x}")
        }
        "truncate" => {
            let len = match rng.below(3) {
                0 => n - 1 - rng.below(n.min(8)),
                1 => layout.proof_at + rng.below(n - layout.proof_at),
                _ => rng.below(n),
            };
            b.truncate(len);
            format!("truncated to {len} of {n} bytes")
        }
        "extend" => {
            let most = if rng.chance(1, 2) { 4 } else { 64 };
            let k = 1 + rng.below(most);
            let extra: Vec<u8> = (0..k)
                .map(|_| if rng.chance(1, 3) { 0 } else { rng.byte() })
                .collect();
            if rng.chance(1, 2) {
                b.extend_from_slice(&extra);
                format!("{k} bytes appended")
            } else {
                let at = rng.below(n + 1);
                b.splice(at..at, extra);
                format!("{k} bytes inserted at {at}")
            }
        }
        "word_copy" | "word_swap" if n >= 64 => {
            let src = word_position(rng, n, layout);
            let dst = word_position(rng, n, layout);
            if kind == "word_copy" {
                b.copy_within(src..src + 32, dst);
                format!("32 bytes copied from {src} to {dst}")
            } else {
                let a: Vec<u8> = b[src..src + 32].to_vec();
                let c: Vec<u8> = b[dst..dst + 32].to_vec();
                b[dst..dst + 32].copy_from_slice(&a);
                b[src..src + 32].copy_from_slice(&c);
                format!("32 bytes at {src} and {dst} swapped")
            }
        }
        "offset" => {
            let f = &layout.offsets[rng.below(layout.offsets.len())];
            let old = u32::from_le_bytes(b[f.at..f.at + 4].try_into().unwrap());
            let c = f.container_len as u32;
            let total = n as u32;
            let v = match rng.below(13) {
                0 => 0,
                1 => 1,
                2 => c.wrapping_sub(1),
                3 => c,
                4 => c.wrapping_add(1),
                5 => total.wrapping_sub(1),
                6 => total,
                7 => total.wrapping_add(1),
                8 => u32::MAX,
                9 => old.wrapping_sub(1),
                10 => old.wrapping_add(1),
                11 => old.wrapping_add(4),
                _ => old.wrapping_sub(4),
            };
            b[f.at..f.at + 4].copy_from_slice(&v.to_le_bytes());
            format!("{} (at {}) set from {old} to {v}", f.name, f.at)
        }
        _ => match rng.pick(&layout.selectors) {
            Some((at, name)) => {
                let old = b[*at];
                let v = [0u8, 1, 2, 0xff][rng.below(4)];
                b[*at] = v;
                format!("{name} (at {at}) set from {old} to {v}")
            }
            None => {
                let at = rng.below(n);
                b[at] ^= 1;
                format!("bit 0 of byte {at} flipped")
            }
        },
    };
    Mutation {
        kind,
        description,
        value: b,
    }
}

/// The start of a 32-byte window: half the time one of the proof's 32-byte fields (`d`,
/// `cl`, `cr`, the final scalar, a commitment), otherwise anywhere.
fn word_position(rng: &mut Rng, n: usize, layout: &SszLayout) -> usize {
    let fields_at = layout.proof_at + 12;
    let points = (n - fields_at) / 32;
    if points > 0 && rng.chance(1, 2) {
        let at = fields_at + 32 * rng.below(points);
        if at + 32 <= n {
            return at;
        }
    }
    rng.below(n - 31)
}

/// Values from other witnesses for the structural mutants: real commitments (points that
/// decode), stems and values.
#[derive(Default)]
pub struct Donors {
    /// Commitments and proof points of every witness.
    pub points: Vec<[u8; 32]>,
    /// Stems of every witness's state diff and other stems.
    pub stems: Vec<[u8; 31]>,
    /// Current and new values of every witness.
    pub values: Vec<[u8; 32]>,
}

/// The scalar field's modulus r, 32 bytes little-endian (a final scalar must be below it).
fn r_le() -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, limb) in out.chunks_mut(8).zip(Fr::MODULUS.0) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

/// `v + delta` as a 256-bit little-endian number, wrapping.
fn add_le(mut v: [u8; 32], delta: i8) -> [u8; 32] {
    if delta >= 0 {
        let mut carry = delta as u16;
        for b in &mut v {
            let s = u16::from(*b) + carry;
            *b = s as u8;
            carry = s >> 8;
        }
    } else {
        let mut borrow = u16::from(delta.unsigned_abs());
        for b in &mut v {
            let (d, under) = b.overflowing_sub(borrow as u8);
            *b = d;
            borrow = u16::from(under);
        }
    }
    v
}

fn flip_bit<const N: usize>(rng: &mut Rng, v: &mut [u8; N]) -> String {
    let at = rng.below(N);
    let bit = rng.below(8);
    v[at] ^= 1 << bit;
    format!("bit {bit} of byte {at} flipped")
}

/// The structural mutant kinds, in the order [`structural_mutant`] draws them.
pub const STRUCTURAL_KINDS: [&str; 13] = [
    "current_value",
    "new_value",
    "suffix",
    "stem",
    "extension_status",
    "other_stems",
    "commitment",
    "proof_point",
    "final_evaluation",
    "suffix_diff_add",
    "suffix_diff_remove",
    "stem_add",
    "stem_remove",
];

/// A structural mutant of `w`: one change (sometimes two or three) to its fields.
pub fn structural_mutant(
    rng: &mut Rng,
    w: &OwnedExecutionWitness,
    donors: &Donors,
) -> Mutation<OwnedExecutionWitness> {
    let mut m = w.clone();
    let kind = STRUCTURAL_KINDS[rng.below(STRUCTURAL_KINDS.len())];
    let mut description = structural_change(rng, &mut m, kind, donors);
    // One mutant in eight stacks further changes of any kind on top.
    if rng.chance(1, 8) {
        for _ in 0..1 + rng.below(2) {
            let more = STRUCTURAL_KINDS[rng.below(STRUCTURAL_KINDS.len())];
            let d = structural_change(rng, &mut m, more, donors);
            description = format!("{description}; then {more}: {d}");
        }
    }
    Mutation {
        kind,
        description,
        value: m,
    }
}

/// A random `(stem, diff)` index pair of `w`, if it has any suffix diff.
fn pick_diff(rng: &mut Rng, w: &OwnedExecutionWitness) -> Option<(usize, usize)> {
    let total: usize = w.state_diff.iter().map(|s| s.suffix_diffs.len()).sum();
    if total == 0 {
        return None;
    }
    let mut k = rng.below(total);
    for (i, s) in w.state_diff.iter().enumerate() {
        if k < s.suffix_diffs.len() {
            return Some((i, k));
        }
        k -= s.suffix_diffs.len();
    }
    None
}

/// A value that is not `old`: a real value from another witness, a small change or random.
fn other_value(rng: &mut Rng, old: Option<[u8; 32]>, donors: &Donors) -> [u8; 32] {
    let mut v = match rng.below(3) {
        0 => rng.pick(&donors.values).copied().unwrap_or_default(),
        1 => old.unwrap_or_default(),
        _ => rng.bytes(),
    };
    if Some(v) == old {
        let at = rng.below(32);
        v[at] ^= 1 << rng.below(8);
    }
    v
}

/// A point to put in place of `old`: usually a real commitment (so the mutant reaches the
/// proof check), sometimes the identity's encoding or a one-bit change.
fn other_point(rng: &mut Rng, old: [u8; 32], donors: &Donors) -> ([u8; 32], &'static str) {
    match rng.below(4) {
        0 | 1 => match rng.pick(&donors.points) {
            Some(p) if *p != old => (*p, "another witness's point"),
            _ => ([0u8; 32], "the identity"),
        },
        2 => ([0u8; 32], "the identity"),
        _ => {
            let mut v = old;
            let at = rng.below(32);
            v[at] ^= 1 << rng.below(8);
            (v, "a one-bit change")
        }
    }
}

fn structural_change(
    rng: &mut Rng,
    m: &mut OwnedExecutionWitness,
    kind: &str,
    donors: &Donors,
) -> String {
    let vp = &mut m.verkle_proof;
    match kind {
        "current_value" | "new_value" => {
            let Some((i, j)) = pick_diff(rng, m) else {
                return "no suffix diff to change".into();
            };
            let d = &mut m.state_diff[i].suffix_diffs[j];
            let current = d.current_value;
            let slot = if kind == "current_value" {
                &mut d.current_value
            } else {
                &mut d.new_value
            };
            let what = match (rng.below(4), *slot) {
                (0, Some(_)) => {
                    *slot = None;
                    "set to null".to_string()
                }
                (1, Some(mut v)) => {
                    let f = flip_bit(rng, &mut v);
                    *slot = Some(v);
                    f
                }
                (2, _) if kind == "new_value" && current.is_some() && *slot != current => {
                    *slot = current;
                    "set to the current value (a write that changes nothing)".to_string()
                }
                (_, old) => {
                    *slot = Some(other_value(rng, old, donors));
                    "set to another value".to_string()
                }
            };
            format!("state_diff[{i}].suffix_diffs[{j}].{kind} {what}")
        }
        "suffix" => {
            let Some((i, j)) = pick_diff(rng, m) else {
                return "no suffix diff to change".into();
            };
            let d = &mut m.state_diff[i].suffix_diffs[j];
            let old = d.suffix;
            d.suffix = match rng.below(4) {
                0 => old.wrapping_add(1),
                1 => old.wrapping_sub(1),
                2 => old ^ 0x80,
                _ => rng.byte(),
            };
            format!(
                "state_diff[{i}].suffix_diffs[{j}].suffix {old} -> {}",
                d.suffix
            )
        }
        "stem" => {
            let Some(i) = (!m.state_diff.is_empty()).then(|| rng.below(m.state_diff.len())) else {
                return "no stem to change".into();
            };
            let depth = vp
                .depth_extension_present
                .get(i)
                .map_or(1, |b| usize::from(b >> 3));
            let s = &mut m.state_diff[i].stem;
            // Half the time past the stem's depth: where an absent stem's bytes are not
            // covered by the proof (a different stem with the same proven absence).
            let at = if rng.chance(1, 2) && depth < STEM_LEN {
                depth + rng.below(STEM_LEN - depth)
            } else {
                rng.below(STEM_LEN)
            };
            let old = s[at];
            s[at] = match rng.below(3) {
                0 => old ^ (1 << rng.below(8)),
                1 => old.wrapping_add(1),
                _ => rng.byte(),
            };
            format!(
                "state_diff[{i}].stem byte {at} (depth {depth}) {old:#04x} -> {:#04x}",
                s[at]
            )
        }
        "extension_status" => {
            let ext = &mut vp.depth_extension_present;
            let Some(i) = (!ext.is_empty()).then(|| rng.below(ext.len())) else {
                return "no extension status".into();
            };
            let old = ext[i];
            let (depth, status) = (old >> 3, old & 7);
            ext[i] = match rng.below(5) {
                0 => (depth << 3) | ((status + 1 + rng.below(2) as u8) % 3),
                1 => (depth << 3) | (3 + rng.below(5) as u8),
                2 => (depth.wrapping_add(1) << 3) | status,
                3 => (depth.wrapping_sub(1) << 3) | status,
                _ => rng.byte(),
            };
            format!("depth_extension_present[{i}] {old:#04x} -> {:#04x}", ext[i])
        }
        "other_stems" => {
            let os = &mut vp.other_stems;
            let choice = if os.is_empty() {
                3 + rng.below(2)
            } else {
                rng.below(5)
            };
            match choice {
                0 => {
                    let i = rng.below(os.len());
                    let f = flip_bit(rng, &mut os[i]);
                    format!("other_stems[{i}]: {f}")
                }
                1 => {
                    let i = rng.below(os.len());
                    os.remove(i);
                    format!("other_stems[{i}] removed")
                }
                2 => {
                    let i = rng.below(os.len());
                    os.insert(i, os[i]);
                    format!("other_stems[{i}] duplicated")
                }
                3 => {
                    // A stem sharing an absent stem's proven prefix, kept in order.
                    let Some(i) = (!m.state_diff.is_empty()).then(|| rng.below(m.state_diff.len()))
                    else {
                        return "no stem to derive an other stem from".into();
                    };
                    let mut s = m.state_diff[i].stem;
                    let at = STEM_LEN - 1 - rng.below(8);
                    s[at] = s[at].wrapping_add(1 + rng.below(255) as u8);
                    let k = os.partition_point(|o| *o < s);
                    os.insert(k, s);
                    format!(
                        "other stem inserted at {k}: state_diff[{i}].stem with byte {at} changed"
                    )
                }
                _ => {
                    let s = if rng.chance(1, 2) {
                        rng.pick(&donors.stems).copied().unwrap_or_default()
                    } else {
                        rng.bytes()
                    };
                    let k = os.partition_point(|o| *o < s);
                    os.insert(k, s);
                    format!("a foreign other stem inserted at {k}")
                }
            }
        }
        "commitment" => {
            let cs = &mut vp.commitments_by_path;
            let choice = if cs.is_empty() { 4 } else { rng.below(5) };
            match choice {
                0 => {
                    let i = rng.below(cs.len());
                    let (p, what) = other_point(rng, cs[i], donors);
                    cs[i] = p;
                    format!("commitments_by_path[{i}] replaced by {what}")
                }
                1 if cs.len() >= 2 => {
                    let i = rng.below(cs.len());
                    let j = (i + 1 + rng.below(cs.len() - 1)) % cs.len();
                    cs.swap(i, j);
                    format!("commitments_by_path[{i}] and [{j}] swapped")
                }
                2 => {
                    let i = rng.below(cs.len());
                    cs.remove(i);
                    format!("commitments_by_path[{i}] removed")
                }
                3 => {
                    let i = rng.below(cs.len());
                    cs.insert(i, cs[i]);
                    format!("commitments_by_path[{i}] duplicated")
                }
                _ => {
                    let i = rng.below(cs.len() + 1);
                    let (p, what) = other_point(rng, [0u8; 32], donors);
                    cs.insert(i, p);
                    format!("{what} inserted at commitments_by_path[{i}]")
                }
            }
        }
        "proof_point" => {
            let ipa = &mut vp.ipa_proof;
            let i = rng.below(8);
            match rng.below(4) {
                0 => {
                    let (p, what) = other_point(rng, vp.d, donors);
                    vp.d = p;
                    format!("d replaced by {what}")
                }
                1 => {
                    let (p, what) = other_point(rng, ipa.cl[i], donors);
                    ipa.cl[i] = p;
                    format!("cl[{i}] replaced by {what}")
                }
                2 => {
                    let (p, what) = other_point(rng, ipa.cr[i], donors);
                    ipa.cr[i] = p;
                    format!("cr[{i}] replaced by {what}")
                }
                _ => {
                    if rng.chance(1, 2) {
                        std::mem::swap(&mut ipa.cl[i], &mut ipa.cr[i]);
                        format!("cl[{i}] and cr[{i}] swapped")
                    } else {
                        let j = (i + 1 + rng.below(7)) % 8;
                        ipa.cl.swap(i, j);
                        format!("cl[{i}] and cl[{j}] swapped")
                    }
                }
            }
        }
        "final_evaluation" => {
            let fe = &mut vp.ipa_proof.final_evaluation;
            let old = *fe;
            let what = match rng.below(6) {
                0 => {
                    *fe = r_le();
                    "set to r"
                }
                1 => {
                    *fe = add_le(r_le(), 1);
                    "set to r + 1"
                }
                2 => {
                    *fe = add_le(r_le(), -1);
                    "set to r - 1"
                }
                3 => {
                    *fe = add_le(old, 1);
                    "incremented"
                }
                4 => {
                    *fe = [0xff; 32];
                    "set to 2^256 - 1"
                }
                _ => {
                    flip_bit(rng, fe);
                    "one bit flipped"
                }
            };
            format!("ipa_proof.final_evaluation {what}")
        }
        "suffix_diff_add" => {
            let Some(i) = (!m.state_diff.is_empty()).then(|| rng.below(m.state_diff.len())) else {
                return "no stem to add a suffix diff to".into();
            };
            let diffs = &mut m.state_diff[i].suffix_diffs;
            let suffix = rng.byte();
            let current = if rng.chance(1, 2) {
                None
            } else {
                Some(other_value(rng, None, donors))
            };
            let new = if rng.chance(1, 2) {
                None
            } else {
                Some(other_value(rng, None, donors))
            };
            let k = diffs.partition_point(|d| d.suffix < suffix);
            diffs.insert(
                k,
                OwnedSuffixStateDiff {
                    suffix,
                    current_value: current,
                    new_value: new,
                },
            );
            format!(
                "suffix diff {suffix} (current {}, new {}) inserted at state_diff[{i}].suffix_diffs[{k}]",
                if current.is_some() { "set" } else { "null" },
                if new.is_some() { "set" } else { "null" }
            )
        }
        "suffix_diff_remove" => {
            let Some((i, j)) = pick_diff(rng, m) else {
                return "no suffix diff to remove".into();
            };
            m.state_diff[i].suffix_diffs.remove(j);
            format!("state_diff[{i}].suffix_diffs[{j}] removed")
        }
        "stem_add" => {
            let mut stem = match (rng.below(3), m.state_diff.is_empty()) {
                (0, false) | (1, false) => {
                    let i = rng.below(m.state_diff.len());
                    let mut s = m.state_diff[i].stem;
                    let at = STEM_LEN - 1 - rng.below(STEM_LEN);
                    s[at] = s[at].wrapping_add(1 + rng.below(255) as u8);
                    s
                }
                _ => rng.pick(&donors.stems).copied().unwrap_or_default(),
            };
            if m.state_diff.iter().any(|s| s.stem == stem) {
                stem[STEM_LEN - 1] ^= 1;
            }
            let k = m.state_diff.partition_point(|s| s.stem < stem);
            let ext = match m.verkle_proof.depth_extension_present.get(k) {
                Some(&b) if rng.chance(1, 2) => b,
                _ => (((1 + rng.below(4)) as u8) << 3) | rng.below(3) as u8,
            };
            m.state_diff.insert(
                k,
                OwnedStemStateDiff {
                    stem,
                    suffix_diffs: vec![OwnedSuffixStateDiff {
                        suffix: rng.byte(),
                        current_value: None,
                        new_value: rng.chance(1, 2).then(|| rng.bytes()),
                    }],
                },
            );
            let ext_list = &mut m.verkle_proof.depth_extension_present;
            let at = k.min(ext_list.len());
            ext_list.insert(at, ext);
            format!("stem inserted at state_diff[{k}] with extension byte {ext:#04x}")
        }
        _ => {
            let Some(i) = (!m.state_diff.is_empty()).then(|| rng.below(m.state_diff.len())) else {
                return "no stem to remove".into();
            };
            m.state_diff.remove(i);
            let ext = &mut m.verkle_proof.depth_extension_present;
            if i < ext.len() && rng.chance(3, 4) {
                ext.remove(i);
                format!("state_diff[{i}] and its extension byte removed")
            } else {
                format!("state_diff[{i}] removed, extension bytes kept")
            }
        }
    }
}

/// Byte positions of the hex digits inside the JSON text's string values (not its keys),
/// the `0x` prefixes' `0` included.
pub fn json_digit_positions(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        // A string: find its end (the witness JSON has no escapes, but skip them anyway).
        let start = i + 1;
        let mut end = start;
        while end < b.len() && b[end] != b'"' {
            end += if b[end] == b'\\' { 2 } else { 1 };
        }
        let is_key = b
            .get(end + 1..)
            .and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace()))
            == Some(&b':');
        if !is_key {
            out.extend((start..end.min(b.len())).filter(|&k| b[k].is_ascii_hexdigit()));
        }
        i = end + 1;
    }
    out
}

/// Changes one hex digit of `text` (at one of `positions`) to a digit of another value.
pub fn json_mutant(rng: &mut Rng, text: &str, positions: &[usize]) -> Mutation<String> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut b = text.as_bytes().to_vec();
    let Some(&at) = rng.pick(positions) else {
        return Mutation {
            kind: "hex_digit",
            description: "no hex digit to change".into(),
            value: text.to_owned(),
        };
    };
    let old = b[at];
    let old_value = (old as char).to_digit(16).unwrap_or(0) as usize;
    let new = DIGITS[(old_value + 1 + rng.below(15)) % 16];
    b[at] = new;
    // Context: the 12 characters before the digit name the field it sits in.
    let from = at.saturating_sub(24);
    let context = String::from_utf8_lossy(&b[from..at]).into_owned();
    Mutation {
        kind: "hex_digit",
        description: format!(
            "character {at} '{}' -> '{}' (after …{context})",
            old as char, new as char
        ),
        value: String::from_utf8(b).expect("hex digits are ASCII"),
    }
}
