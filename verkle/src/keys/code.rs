//! Code chunking (EIP-6800 `chunkify_code`).
//!
//! Code is cut into 31-byte pieces (the last one zero-padded); each 32-byte chunk is one byte
//! counting the PUSH data bytes at the start of the piece (capped at 31) followed by the piece.
//! `PUSH1 = 0x60 ..= PUSH32 = 0x7f` carry 1..=32 data bytes.

/// The first PUSH opcode (`PUSH1`).
pub const PUSH1: u8 = 0x60;
/// The last PUSH opcode (`PUSH32`).
pub const PUSH32: u8 = 0x7f;
/// Code bytes carried by one chunk.
pub const CHUNK_CODE_BYTES: usize = 31;

/// Splits `code` into 32-byte chunks: `[min(push data left at the piece start, 31)] ‖ piece`.
///
/// Linear in the code length. Empty code gives no chunks. Push data running past the end of
/// the code counts as push data of the (zero) padding, as in the EIP's reference code.
pub fn chunkify_code(code: &[u8]) -> Vec<[u8; 32]> {
    let n_chunks = code.len().div_ceil(CHUNK_CODE_BYTES);
    let mut chunks = vec![[0u8; 32]; n_chunks];
    // Index of the first byte after the current PUSH's data; bytes before it (and after the
    // opcode) are push data.
    let mut data_end = 0usize;
    let mut pc = 0usize;
    for (i, chunk) in chunks.iter_mut().enumerate() {
        let start = i * CHUNK_CODE_BYTES;
        let end = (start + CHUNK_CODE_BYTES).min(code.len());
        // Walk the opcodes that begin before this piece's start (they decide its count byte).
        while pc < start {
            let op = code[pc];
            data_end = if (PUSH1..=PUSH32).contains(&op) {
                pc + 1 + usize::from(op - PUSH1 + 1)
            } else {
                pc + 1
            };
            pc = data_end;
        }
        let pushdata_left = data_end.saturating_sub(start);
        chunk[0] = pushdata_left.min(CHUNK_CODE_BYTES) as u8;
        chunk[1..1 + (end - start)].copy_from_slice(&code[start..end]);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_short_code() {
        assert!(chunkify_code(&[]).is_empty());
        let c = chunkify_code(&[0x00]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0][0], 0);
        assert_eq!(c[0][1], 0);
        // 31 bytes: exactly one chunk; 32 bytes: two.
        assert_eq!(chunkify_code(&[0x5b; 31]).len(), 1);
        assert_eq!(chunkify_code(&[0x5b; 32]).len(), 2);
    }

    #[test]
    fn push_data_crossing_a_chunk() {
        // 30 JUMPDESTs, then PUSH4 at offset 30: its 4 data bytes are offsets 31..=34.
        let mut code = vec![0x5b; 30];
        code.push(0x63);
        code.extend_from_slice(&[1, 2, 3, 4]);
        code.push(0x00);
        let c = chunkify_code(&code);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0][0], 0);
        assert_eq!(c[1][0], 4);
        assert_eq!(&c[1][1..6], &[1, 2, 3, 4, 0]);
    }

    #[test]
    fn push32_at_last_byte_caps_at_31() {
        // PUSH32 at offset 30 (the 31st code byte): the next piece is all push data (32 > 31).
        let mut code = vec![0x5b; 30];
        code.push(PUSH32);
        code.extend_from_slice(&[0xaa; 32]);
        code.push(0x00);
        let c = chunkify_code(&code);
        assert_eq!(c.len(), 3);
        assert_eq!(c[1][0], 31);
        // One data byte spills into the third piece.
        assert_eq!(c[2][0], 1);
    }

    #[test]
    fn truncated_push_at_end() {
        // PUSH2 whose data runs past the end of the code.
        let mut code = vec![0x5b; 30];
        code.push(0x61);
        let c = chunkify_code(&code);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0][31], 0x61);
    }
}
