//! Query builder shared by the crypto bench and the `cpu_cost` example (included by path).

use banderwagon::{Element, Fr};
use ipa::ProverQuery;
use rand::{rngs::StdRng, Rng};

/// `n` openings of `polys` (four per polynomial, in order) at random domain points.
pub fn random_z_queries<'a>(
    n: usize,
    polys: &'a [Vec<Fr>],
    comms: &[Element],
    rng: &mut StdRng,
) -> Vec<ProverQuery<'a>> {
    (0..n)
        .map(|i| {
            let z: u8 = rng.gen();
            ProverQuery {
                commitment: comms[i / 4],
                poly: &polys[i / 4],
                point: z,
                result: polys[i / 4][z as usize],
            }
        })
        .collect()
}
