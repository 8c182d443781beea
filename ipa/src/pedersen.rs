//! The EIP-6800 Pedersen hash and `get_tree_key` (EIP-6800; `spec/WIRE.md` §12).
//!
//! `pedersen_hash(inp) = LE32(map_to_scalar_field(Σ ints_i·G_i))` with
//! `ints = [2 + 256·len(inp)] ‖ LE_u128 chunks of inp`. For the 64 bytes of a tree key only
//! G0..G4 are used; the first term is a constant and the address half is shared by every
//! key of one account, so [`AddressHasher`] precomputes both.

use crate::prelude::*;

use banderwagon::once::Once as OnceLock;

use banderwagon::{fr_to_le_bytes, vartime_straus, Element, Fr};

use crate::committer::Committer;
use crate::crs::Crs;

/// Longest input of [`pedersen_hash`]: 255 chunks of 16 bytes.
pub const MAX_PEDERSEN_INPUT: usize = 255 * 16;

fn chunk(bytes: &[u8]) -> Fr {
    Fr::from(chunk_u128(bytes))
}

/// A little-endian chunk of up to 16 bytes as an integer.
fn chunk_u128(bytes: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    let n = bytes.len().min(16);
    w[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(w)
}

/// The two 16-byte chunks of a 32-byte half of a 64-byte input, as `(generator, value)`.
fn chunk_terms(first_generator: usize, half: &[u8; 32]) -> [(usize, u128); 2] {
    [
        (first_generator, chunk_u128(&half[..16])),
        (first_generator + 1, chunk_u128(&half[16..])),
    ]
}

/// The Pedersen hash of up to [`MAX_PEDERSEN_INPUT`] bytes, or `None` if longer.
pub fn pedersen_hash(committer: &Committer, input: &[u8]) -> Option<[u8; 32]> {
    if input.len() > MAX_PEDERSEN_INPUT {
        return None;
    }
    let mut terms = Vec::with_capacity(1 + input.len().div_ceil(16));
    terms.push((0usize, Fr::from(2 + 256 * input.len() as u64)));
    for (i, c) in input.chunks(16).enumerate() {
        terms.push((i + 1, chunk(c)));
    }
    let p = committer.commit_sparse(&terms);
    Some(fr_to_le_bytes(&p.map_to_scalar_field()))
}

/// `16386·G0`: the constant first term of every 64-byte hash.
fn header_term(committer: &Committer) -> Element {
    static T: OnceLock<Element> = OnceLock::new();
    *T.get_or_init(|| committer.scalar_mul(0, &Fr::from(2u64 + 256 * 64)))
}

/// The Pedersen hash of 64 bytes (`hash64`).
pub fn hash64(committer: &Committer, input: &[u8; 64]) -> [u8; 32] {
    let terms: [(usize, u128); 4] = core::array::from_fn(|i| {
        let c = input
            .get(16 * i..16 * (i + 1))
            .expect("four 16-byte chunks of 64 bytes");
        (i + 1, chunk_u128(c))
    });
    let acc = committer.add_u128_terms(header_term(committer), &terms);
    fr_to_le_bytes(&acc.map_to_scalar_field())
}

/// [`hash64`] without the [`Committer`]'s tables: one variable-base multi-scalar
/// multiplication over the CRS's first five generators (`G0` for the constant term,
/// `G1..G4` for the four 16-byte chunks). Bit-identical to [`hash64`]; for verifiers and
/// WebAssembly, which should not build the prover's tables for a few keys.
pub fn hash64_from_crs(crs: &Crs, input: &[u8; 64]) -> [u8; 32] {
    let scalars: [Fr; 5] = core::array::from_fn(|i| match i {
        0 => Fr::from(2u64 + 256 * 64),
        _ => Fr::from(chunk_u128(
            input
                .get(16 * (i - 1)..16 * i)
                .expect("four 16-byte chunks of 64 bytes"),
        )),
    });
    let bases = crs
        .g
        .get(..5)
        .expect("the CRS has at least five generators");
    let p = vartime_straus(bases, &scalars);
    fr_to_le_bytes(&p.map_to_scalar_field())
}

/// [`get_tree_key`] through [`hash64_from_crs`]: no precomputed tables, the same key.
pub fn get_tree_key_from_crs(
    crs: &Crs,
    address: &[u8; 32],
    tree_index: &[u8; 32],
    sub_index: u8,
) -> [u8; 32] {
    let mut input = [0u8; 64];
    input[..32].copy_from_slice(address);
    input[32..].copy_from_slice(tree_index);
    let mut key = hash64_from_crs(crs, &input);
    key[31] = sub_index;
    key
}

/// `get_tree_key(address32, tree_index, sub_index)`: the first 31 bytes of
/// `pedersen_hash(address32 ‖ LE32(tree_index))` followed by `sub_index`.
/// `tree_index` is the 256-bit index in little-endian bytes.
pub fn get_tree_key(
    committer: &Committer,
    address: &[u8; 32],
    tree_index: &[u8; 32],
    sub_index: u8,
) -> [u8; 32] {
    AddressHasher::new(committer, address).tree_key(tree_index, sub_index)
}

/// Tree keys of one account: the address half of the hash computed once.
#[derive(Clone, Debug)]
pub struct AddressHasher<'c> {
    committer: &'c Committer,
    partial: Element,
}

impl<'c> AddressHasher<'c> {
    /// Precomputes `16386·G0 + addr_lo·G1 + addr_hi·G2`.
    pub fn new(committer: &'c Committer, address: &[u8; 32]) -> Self {
        let partial = committer.add_u128_terms(header_term(committer), &chunk_terms(1, address));
        AddressHasher { committer, partial }
    }

    /// The stem (31 bytes) for `tree_index` (little-endian 256-bit).
    pub fn stem(&self, tree_index: &[u8; 32]) -> [u8; 31] {
        let acc = self
            .committer
            .add_u128_terms(self.partial, &chunk_terms(3, tree_index));
        let h = fr_to_le_bytes(&acc.map_to_scalar_field());
        let mut stem = [0u8; 31];
        stem.copy_from_slice(&h[..31]);
        stem
    }

    /// The full 32-byte tree key.
    pub fn tree_key(&self, tree_index: &[u8; 32], sub_index: u8) -> [u8; 32] {
        let mut key = [0u8; 32];
        key[..31].copy_from_slice(&self.stem(tree_index));
        key[31] = sub_index;
        key
    }
}

/// Inputs per rayon task of the batched hashes (and per field inversion).
const HASH_BATCH_CHUNK: usize = banderwagon::MTF_CHUNK;

/// The hashes of many inputs, in order: `start(input) + Σ terms(input)` mapped to the scalar
/// field, its first `N` little-endian bytes. On rayon threads in chunks of
/// [`HASH_BATCH_CHUNK`] when the `parallel` feature is on and there are at least two chunks;
/// each chunk sums its points together ([`Committer::add_u128_terms_many`]) and shares one
/// field inversion for the map to the scalar field.
fn hash_many<T: Sync, const K: usize, const N: usize>(
    committer: &Committer,
    inputs: &[T],
    start: impl Fn(&T) -> Element + Sync,
    terms: impl Fn(&T) -> [(usize, u128); K] + Sync,
    out: &mut [[u8; N]],
) {
    let chunk = |inputs: &[T], out: &mut [[u8; N]]| {
        let mut points: Vec<Element> = inputs.iter().map(&start).collect();
        let terms: Vec<[(usize, u128); K]> = inputs.iter().map(&terms).collect();
        committer.add_u128_terms_many(&mut points, &terms);
        let mut scalars = vec![Fr::from(0u64); points.len()];
        Element::batch_map_to_scalar_field_into(&points, &mut scalars);
        for (o, h) in out.iter_mut().zip(&scalars) {
            let bytes = fr_to_le_bytes(h);
            o.copy_from_slice(&bytes[..N]);
        }
    };
    #[cfg(feature = "parallel")]
    if inputs.len() >= 2 * HASH_BATCH_CHUNK {
        use rayon::prelude::*;
        inputs
            .par_chunks(HASH_BATCH_CHUNK)
            .zip(out.par_chunks_mut(HASH_BATCH_CHUNK))
            .for_each(|(i, o)| chunk(i, o));
        return;
    }
    for (i, o) in inputs
        .chunks(HASH_BATCH_CHUNK)
        .zip(out.chunks_mut(HASH_BATCH_CHUNK))
    {
        chunk(i, o);
    }
}

/// [`hash64`] of many inputs, in order, bit-identical to calling it on each: one field
/// inversion per [`banderwagon::MTF_CHUNK`] inputs instead of one per input, and the
/// chunks on rayon threads with the `parallel` feature.
pub fn hash64_many(committer: &Committer, inputs: &[[u8; 64]]) -> Vec<[u8; 32]> {
    let start = header_term(committer);
    let mut out = vec![[0u8; 32]; inputs.len()];
    hash_many(
        committer,
        inputs,
        |_| start,
        |input| {
            let address: &[u8; 32] = input[..32].try_into().expect("64 = 32 + 32");
            let index: &[u8; 32] = input[32..].try_into().expect("64 = 32 + 32");
            let [a, b] = chunk_terms(1, address);
            let [c, d] = chunk_terms(3, index);
            [a, b, c, d]
        },
        &mut out,
    );
    out
}

impl<'c> AddressHasher<'c> {
    /// [`AddressHasher::new`] for many addresses, in order, with the point sums of
    /// [`Committer::add_u128_terms_many`] (on rayon threads in chunks with the `parallel`
    /// feature).
    pub fn new_many(committer: &'c Committer, addresses: &[[u8; 32]]) -> Vec<AddressHasher<'c>> {
        let start = header_term(committer);
        let chunk = |addresses: &[[u8; 32]]| -> Vec<AddressHasher<'c>> {
            let mut partials = vec![start; addresses.len()];
            let terms: Vec<[(usize, u128); 2]> =
                addresses.iter().map(|a| chunk_terms(1, a)).collect();
            committer.add_u128_terms_many(&mut partials, &terms);
            partials
                .into_iter()
                .map(|partial| AddressHasher { committer, partial })
                .collect()
        };
        #[cfg(feature = "parallel")]
        if addresses.len() >= 2 * HASH_BATCH_CHUNK {
            use rayon::prelude::*;
            return addresses
                .par_chunks(HASH_BATCH_CHUNK)
                .flat_map_iter(chunk)
                .collect();
        }
        addresses.chunks(HASH_BATCH_CHUNK).flat_map(chunk).collect()
    }

    /// The stems of `(address, tree index)` requests over several addresses in one batch
    /// (as [`AddressHasher::stems`] batches one address's). Every hasher must come from
    /// `committer`; panics otherwise.
    pub fn stems_of_many(
        committer: &Committer,
        requests: &[(&AddressHasher<'_>, [u8; 32])],
    ) -> Vec<[u8; 31]> {
        assert!(
            requests
                .iter()
                .all(|(h, _)| core::ptr::eq(h.committer, committer)),
            "every AddressHasher of a batch must come from its committer"
        );
        let mut out = vec![[0u8; 31]; requests.len()];
        hash_many(
            committer,
            requests,
            |(h, _)| h.partial,
            |(_, index)| chunk_terms(3, index),
            &mut out,
        );
        out
    }
}

impl AddressHasher<'_> {
    /// [`stem`](Self::stem) of many tree indices, in order, bit-identical to calling it on
    /// each, with the batching of [`hash64_many`].
    pub fn stems(&self, tree_indices: &[[u8; 32]]) -> Vec<[u8; 31]> {
        let mut out = vec![[0u8; 31]; tree_indices.len()];
        hash_many(
            self.committer,
            tree_indices,
            |_| self.partial,
            |index| chunk_terms(3, index),
            &mut out,
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{rngs::StdRng, Rng, SeedableRng};

    #[test]
    fn fast_paths_match_generic_hash() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(11);
        let mut inputs: Vec<[u8; 64]> = vec![[0u8; 64], [0xff; 64]];
        inputs.extend((0..40).map(|_| core::array::from_fn(|_| rng.gen())));
        for input in &inputs {
            let want = pedersen_hash(committer, input);
            assert_eq!(Some(hash64(committer, input)), want);
            let address: [u8; 32] = core::array::from_fn(|i| input[i]);
            let index: [u8; 32] = core::array::from_fn(|i| input[32 + i]);
            let key = get_tree_key(committer, &address, &index, 9);
            let want = want.unwrap_or_default();
            assert_eq!(key[..31], want[..31]);
            assert_eq!(key[31], 9);
        }
    }

    #[test]
    fn batched_hashes_match_one_by_one() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(13);
        // Sizes around the chunk boundaries, where the batching and threading change.
        for n in [0usize, 1, 2, 255, 256, 257, 600] {
            let inputs: Vec<[u8; 64]> = (0..n)
                .map(|i| {
                    core::array::from_fn(|j| {
                        if i % 7 == 0 {
                            0
                        } else {
                            rng.gen::<u8>() ^ j as u8
                        }
                    })
                })
                .collect();
            let want: Vec<[u8; 32]> = inputs.iter().map(|x| hash64(committer, x)).collect();
            assert_eq!(hash64_many(committer, &inputs), want, "{n} inputs");
            let address: [u8; 32] = core::array::from_fn(|_| rng.gen());
            let hasher = AddressHasher::new(committer, &address);
            let indices: Vec<[u8; 32]> = inputs
                .iter()
                .map(|x| core::array::from_fn(|j| x[32 + j]))
                .collect();
            let want: Vec<[u8; 31]> = indices.iter().map(|i| hasher.stem(i)).collect();
            assert_eq!(hasher.stems(&indices), want, "{n} indices");
        }
    }

    #[test]
    fn batched_hashers_and_cross_address_stems_match() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(14);
        for n in [0usize, 1, 9, 513] {
            let addresses: Vec<[u8; 32]> = (0..n)
                .map(|_| core::array::from_fn(|_| rng.gen()))
                .collect();
            let hashers = AddressHasher::new_many(committer, &addresses);
            assert_eq!(hashers.len(), n);
            let requests: Vec<(&AddressHasher<'_>, [u8; 32])> = hashers
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    (
                        h,
                        core::array::from_fn(|j| if j < 2 { (i * 31 + j) as u8 } else { 0 }),
                    )
                })
                .collect();
            let got = AddressHasher::stems_of_many(committer, &requests);
            for ((address, (_, index)), stem) in addresses.iter().zip(&requests).zip(&got) {
                assert_eq!(*stem, AddressHasher::new(committer, address).stem(index));
            }
        }
    }

    #[test]
    fn commit_sparse_matches_commit() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(12);
        let terms: Vec<(usize, Fr)> = [0usize, 3, 4, 5, 100, 255]
            .iter()
            .map(|&i| (i, Fr::from(rng.gen::<u128>()) * Fr::from(rng.gen::<u128>())))
            .collect();
        let mut dense = vec![Fr::from(0u64); 256];
        for (i, v) in &terms {
            dense[*i] = *v;
        }
        assert_eq!(committer.commit_sparse(&terms), committer.commit(&dense));
        let start = committer.scalar_mul(7, &Fr::from(5u64));
        let small: Vec<(usize, u128)> = vec![(1, u128::MAX), (4, 3), (200, 1 << 100), (2, 0)];
        let expect = small.iter().fold(start, |acc, (i, v)| {
            acc + committer.scalar_mul(*i, &Fr::from(*v))
        });
        assert_eq!(committer.add_u128_terms(start, &small), expect);
    }

    /// Many sparse sums at once (eight per lane batch where the processor allows): empty
    /// sums, sums on the wide-window generators only, on the others only, mixed, and more
    /// sums than outputs.
    #[test]
    fn commit_sparse_many_matches_commit_sparse() {
        let committer = Committer::eip6800();
        let mut rng = StdRng::seed_from_u64(13);
        let mut random = |k: usize| -> Vec<(usize, Fr)> {
            (0..k)
                .map(|_| {
                    let i = rng.gen_range(0..256usize);
                    let v = Fr::from(rng.gen::<u128>()) * Fr::from(rng.gen::<u128>());
                    (i, v)
                })
                .collect()
        };
        let mut sums: Vec<Vec<(usize, Fr)>> = (0..37).map(|k| random(k % 5)).collect();
        sums.push(vec![(0, Fr::from(1u64)), (4, -Fr::from(2u64))]);
        sums.push(vec![
            (2, Fr::from(3u64)),
            (200, Fr::from(9u64)),
            (2, -Fr::from(3u64)),
        ]);
        for outputs in [sums.len(), 11, 1, 0] {
            let mut out = vec![Element::generator(); outputs];
            committer.commit_sparse_many(sums.iter().map(Vec::as_slice), &mut out);
            for (got, terms) in out.iter().zip(&sums) {
                assert_eq!(*got, committer.commit_sparse(terms), "{terms:?}");
            }
        }
    }
}
