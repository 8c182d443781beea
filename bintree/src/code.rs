//! Code chunking, the same in EIP-8297 and EIP-7864 ("Code": `chunkify_code`).
//!
//! Chunk `i` holds bytes `31·i .. 31·(i+1)` of the code (zero-padded) after one byte giving
//! how many of its leading bytes are PUSHDATA of an instruction in an earlier chunk (at most 31).

use crate::prelude::*;

/// Bytes of code per chunk.
pub const CHUNK_CODE_BYTES: usize = 31;

const PUSH1: u8 = 0x60;
const PUSH32: u8 = 0x7f;

/// The 32-byte chunks of `code`: `ceil(len / 31)` of them, none for empty code.
pub fn chunkify(code: &[u8]) -> Vec<[u8; 32]> {
    let count = code.len().div_ceil(CHUNK_CODE_BYTES);
    let mut chunks = Vec::with_capacity(count);
    // The PUSHDATA byte that begins the next chunk: how far the last instruction's data runs on.
    let mut pos = 0usize;
    for i in 0..count {
        let start = i * CHUNK_CODE_BYTES;
        let end = core::cmp::min(start + CHUNK_CODE_BYTES, code.len());
        let mut chunk = [0u8; 32];
        // Instructions that began earlier may still cover bytes from `start` on.
        let leading = pos.saturating_sub(start);
        chunk[0] = core::cmp::min(leading, CHUNK_CODE_BYTES) as u8;
        chunk[1..1 + (end - start)].copy_from_slice(&code[start..end]);
        // Walk the instructions that begin in this chunk.
        while pos < end {
            let op = code[pos];
            pos += 1;
            if (PUSH1..=PUSH32).contains(&op) {
                pos += usize::from(op - PUSH1) + 1;
            }
        }
        chunks.push(chunk);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eip_example_push4_across_a_boundary() {
        // 28 STOPs, PUSH4 99 98 | 97 96 PUSH1 128 MSTORE
        let mut code = vec![0u8; 28];
        code.extend_from_slice(&[0x63, 99, 98, 97, 96, 0x60, 128, 0x52]);
        let chunks = chunkify(&code);
        assert_eq!(chunks.len(), 2);
        assert_eq!(&chunks[1][..6], &[2, 97, 96, 0x60, 128, 0x52]);
    }

    #[test]
    fn push32_data_spills_past_a_whole_chunk() {
        // PUSH32 at the last byte of chunk 0: 32 bytes of data cover all of chunk 1 and one
        // byte of chunk 2.
        let mut code = vec![0u8; 30];
        code.push(PUSH32);
        code.extend_from_slice(&[0xee; 32]);
        code.push(0);
        let chunks = chunkify(&code);
        assert_eq!(chunks[1][0], 31);
        assert_eq!(chunks[2][0], 1);
    }
}
