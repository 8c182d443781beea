//! Reading ahead of the replay: a thread decodes the export and verifies the witnesses
//! against the pre-state roots the export claims for them, a batch of blocks at a time
//! ([`witness::verify_batch`]: one multi-scalar multiplication for the batch's multiproofs),
//! while the replay applies, commits and persists the blocks before.
//!
//! The blocks come out in export order, each with its [`EarlyVerdict`]; the replay still
//! takes them one at a time and writes in order, so what is on disk after any stop is what
//! the serial loop would have written. An early verdict is used only when the root it was
//! reached against is the root the state computed (see
//! [`Replayer::block_verified_ahead`](crate::replayer::Replayer::block_verified_ahead)); an
//! error of the export (exit 2) comes out in its place in the order, after the blocks
//! before it (the batch it ends is verified and handed out first).

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use anyhow::{anyhow, Result};

use crate::export::{ExportReader, ExportedBlock};
use crate::verdict::EarlyVerdict;

/// Most blocks verified in one batch, and most blocks verified ahead waiting for the
/// replay: with the batch being prepared and the block being replayed, at most
/// `2 * BATCH_BLOCKS + 1` decoded blocks are held.
const BATCH_BLOCKS: usize = 16;

/// A batch ends once its witnesses reach this many bytes (SSZ): big blocks are few a batch,
/// so memory stays bounded by the witnesses' size as well as by their count.
const BATCH_WITNESS_BYTES: usize = 16 << 20;

/// One block read ahead: the block, and its witness's verdict when it is to be replayed.
pub type Prepared = (ExportedBlock, Option<EarlyVerdict>);

/// The blocks of an export, decoded and verified on another thread.
pub struct ReadAhead {
    rx: Receiver<Result<Prepared>>,
    worker: Option<JoinHandle<()>>,
}

impl ReadAhead {
    /// Starts reading `reader` for a state at `height` whose root is `root`: blocks above
    /// `height` have their witness verified against the root the export claims before them
    /// (the block's `parentStateRoot`, else the previous block's `stateRoot`, else `root`).
    pub fn spawn(reader: ExportReader, height: u64, root: [u8; 32]) -> Result<ReadAhead> {
        let (tx, rx) = sync_channel::<Result<Prepared>>(BATCH_BLOCKS);
        let worker = std::thread::Builder::new()
            .name("fverkle-read-ahead".into())
            .spawn(move || read_ahead(reader, height, root, &tx))
            .map_err(|e| anyhow!("starting the read-ahead thread: {e}"))?;
        Ok(ReadAhead {
            rx,
            worker: Some(worker),
        })
    }
}

/// The read-ahead thread: batches of blocks read, verified together and sent in order,
/// until the end of the export, its first error, or the replay's stop (a closed channel).
/// The first batch is one block and each next one twice the last, up to [`BATCH_BLOCKS`],
/// so the replay starts after one block's verification, not a whole batch's.
fn read_ahead(
    mut reader: ExportReader,
    height: u64,
    root: [u8; 32],
    tx: &SyncSender<Result<Prepared>>,
) {
    let mut claimed = root;
    let mut size = 1;
    loop {
        // The blocks of the batch, each with the root it is verified against (`None`: at
        // or below the state's height, not replayed).
        let mut batch: Vec<(ExportedBlock, Option<[u8; 32]>)> = Vec::with_capacity(size);
        let mut bytes = 0usize;
        let mut error = None;
        let mut ended = false;
        while batch.len() < size && bytes < BATCH_WITNESS_BYTES {
            match reader.next() {
                Some(Ok(b)) => {
                    let against =
                        (b.number > height).then(|| b.parent_state_root.unwrap_or(claimed));
                    claimed = b.state_root;
                    bytes = bytes.saturating_add(b.witness_bytes);
                    batch.push((b, against));
                }
                Some(Err(e)) => {
                    error = Some(e);
                    break;
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
        let to_verify: Vec<([u8; 32], &witness::ExecutionWitness)> = batch
            .iter()
            .filter_map(|(b, against)| against.map(|r| (r, &b.witness)))
            .collect();
        let mut verdicts = EarlyVerdict::of_batch(&to_verify).into_iter();
        for (b, against) in batch {
            let verdict = against.and_then(|_| verdicts.next());
            // A closed channel: the replay stopped (a verdict); so does the reading.
            if tx.send(Ok((b, verdict))).is_err() {
                return;
            }
        }
        if let Some(e) = error {
            let _ = tx.send(Err(e));
            return;
        }
        if ended {
            return;
        }
        size = (size * 2).min(BATCH_BLOCKS);
    }
}

impl Iterator for ReadAhead {
    type Item = Result<Prepared>;

    fn next(&mut self) -> Option<Result<Prepared>> {
        match self.rx.recv() {
            Ok(item) => Some(item),
            // The thread is done: at the end of the export, or because it panicked, which
            // must not pass for the end of the export.
            Err(_) => match self.worker.take().map(JoinHandle::join) {
                Some(Err(_)) => Some(Err(anyhow!(
                    "the read-ahead thread stopped unexpectedly (a bug)"
                ))),
                _ => None,
            },
        }
    }
}

// Dropping a `ReadAhead` before the end does not wait for the thread: it ends at its next
// send (or stays blocked reading stdin until the process exits).

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_witness_json() -> serde_json::Value {
        witness::OwnedExecutionWitness::default()
            .to_witness()
            .expect("empty witness encodes")
            .to_json_value()
    }

    #[test]
    fn blocks_come_in_order_each_verified_against_the_root_claimed_before_it() {
        let w = empty_witness_json();
        let hex = |b: u8| format!("0x{}", format!("{b:02x}").repeat(32));
        let lines: String = [
            serde_json::json!({"blockNumber": 1, "stateRoot": hex(0x11), "executionWitness": w}),
            serde_json::json!({"blockNumber": 2, "stateRoot": hex(0x22), "executionWitness": w}),
            serde_json::json!({"blockNumber": 3, "parentStateRoot": hex(0x99), "stateRoot": hex(0x33), "executionWitness": w}),
        ]
        .iter()
        .map(|b| format!("{b}\n"))
        .collect::<String>()
            + "{\"blockNumber\": 4, \"trunc\n";
        let reader = ExportReader::from_bytes("x.jsonl", lines.into_bytes());
        let got: Vec<Result<Prepared>> = ReadAhead::spawn(reader, 1, [0xaa; 32])
            .expect("spawn")
            .collect();
        assert_eq!(got.len(), 4);
        // Block 1 is at the state's height: not verified ahead.
        let (b1, v1) = got[0].as_ref().expect("block 1");
        assert_eq!((b1.number, v1.is_none()), (1, true));
        // Block 2 against block 1's claimed root; block 3 against its own parentStateRoot.
        let (b2, v2) = got[1].as_ref().expect("block 2");
        let v2 = v2.as_ref().expect("verified ahead");
        assert_eq!((b2.number, v2.root), (2, [0x11; 32]));
        // An empty witness proves nothing: a verdict of invalid, kept for the replay.
        assert!(v2.result.is_err());
        let (_, v3) = got[2].as_ref().expect("block 3");
        assert_eq!(v3.as_ref().expect("verified ahead").root, [0x99; 32]);
        let e = format!("{:#}", got[3].as_ref().expect_err("line 4 is cut"));
        assert!(e.contains("x.jsonl: line 4: not JSON"), "{e}");
    }

    #[test]
    fn blocks_of_many_batches_come_in_order_with_their_own_roots_and_verdicts() {
        let w = empty_witness_json();
        let root = |n: u64| format!("0x{}", format!("{:02x}", n as u8).repeat(32));
        // More blocks than a few batches hold, the export's error after the last.
        let n = 3 * BATCH_BLOCKS as u64 + 5;
        let lines: String = (1..=n)
            .map(|b| {
                format!(
                    "{}\n",
                    serde_json::json!({"blockNumber": b, "stateRoot": root(b), "executionWitness": w})
                )
            })
            .collect::<String>()
            + "not json\n";
        let reader = ExportReader::from_bytes("x.jsonl", lines.into_bytes());
        let got: Vec<Result<Prepared>> = ReadAhead::spawn(reader, 0, [0; 32])
            .expect("spawn")
            .collect();
        assert_eq!(got.len() as u64, n + 1);
        let empty = witness::OwnedExecutionWitness::default()
            .to_witness()
            .expect("empty witness encodes");
        for (i, item) in got[..n as usize].iter().enumerate() {
            let (b, v) = item.as_ref().expect("a block");
            assert_eq!(b.number, i as u64 + 1);
            let v = v.as_ref().expect("verified ahead");
            assert_eq!(v.root, [i as u8; 32], "block {}", b.number);
            // The batch's verdict is the one-by-one verdict, word for word.
            assert_eq!(v.result, EarlyVerdict::verify(&v.root, &empty));
            assert!(v.result.is_err());
        }
        let e = format!("{:#}", got[n as usize].as_ref().expect_err("the last line"));
        assert!(
            e.contains(&format!("x.jsonl: line {}: not JSON", n + 1)),
            "{e}"
        );
    }

    #[test]
    fn dropping_the_reader_early_stops_the_thread() {
        let w = empty_witness_json();
        let lines: String = (1..=50)
            .map(|n| {
                format!(
                    "{}\n",
                    serde_json::json!({"blockNumber": n, "stateRoot": format!("0x{}", "11".repeat(32)), "executionWitness": w})
                )
            })
            .collect();
        let mut ahead = ReadAhead::spawn(
            ExportReader::from_bytes("x.jsonl", lines.into_bytes()),
            0,
            [0; 32],
        )
        .expect("spawn");
        assert!(ahead.next().is_some());
        let worker = ahead.worker.take().expect("worker");
        drop(ahead);
        // The thread ends at its next send; a hang here fails the test by timeout.
        worker.join().expect("the thread ends cleanly");
    }
}
