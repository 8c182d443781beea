//! Reading ahead of the replay: a thread decodes the export and verifies each witness
//! against the pre-state root the export claims for it, while the replay applies, commits
//! and persists the block before.
//!
//! The blocks come out in export order, each with its [`EarlyVerdict`]; the replay still
//! takes them one at a time and writes in order, so what is on disk after any stop is what
//! the serial loop would have written. An early verdict is used only when the root it was
//! reached against is the root the state computed (see
//! [`Replayer::block_verified_ahead`](crate::replayer::Replayer::block_verified_ahead)); an
//! error of the export (exit 2) comes out in its place in the order, after the blocks
//! before it.

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use anyhow::{anyhow, Result};

use crate::export::{ExportReader, ExportedBlock};
use crate::replayer::EarlyVerdict;

/// Blocks decoded and verified ahead, waiting for the replay (besides the one being
/// prepared): bounds the memory read-ahead takes.
const AHEAD: usize = 1;

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
        let (tx, rx) = sync_channel::<Result<Prepared>>(AHEAD);
        let worker = std::thread::Builder::new()
            .name("fverkle-read-ahead".into())
            .spawn(move || {
                let mut claimed = root;
                for item in reader {
                    let item = item.map(|b| {
                        let verdict = (b.number > height).then(|| {
                            EarlyVerdict::of(b.parent_state_root.unwrap_or(claimed), &b.witness)
                        });
                        claimed = b.state_root;
                        (b, verdict)
                    });
                    let failed = item.is_err();
                    // A closed channel: the replay stopped (a verdict); so does the reading.
                    if tx.send(item).is_err() || failed {
                        break;
                    }
                }
            })
            .map_err(|e| anyhow!("starting the read-ahead thread: {e}"))?;
        Ok(ReadAhead {
            rx,
            worker: Some(worker),
        })
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
