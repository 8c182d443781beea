//! Progress of a long run: a bar on stderr when it is a terminal, otherwise an `info!` line
//! every few seconds (so logs of a run in CI or under a pipe still show it moving).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use tracing::info;

/// How often the non-terminal form logs.
const LOG_EVERY: Duration = Duration::from_secs(5);

/// Progress over a count of items (blocks).
pub struct Progress {
    label: &'static str,
    bar: Option<ProgressBar>,
    start: Instant,
    last_log: Instant,
    done: u64,
    total: Option<u64>,
}

impl Progress {
    /// Starts reporting; `total` when it is known.
    pub fn new(label: &'static str, total: Option<u64>) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = match total {
                Some(n) => ProgressBar::new(n),
                None => ProgressBar::new_spinner(),
            };
            let template = if total.is_some() {
                "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {per_sec} {msg}"
            } else {
                "{prefix} [{elapsed_precise}] {spinner} {pos} {per_sec} {msg}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.set_prefix(label);
            bar
        });
        let now = Instant::now();
        Progress {
            label,
            bar,
            start: now,
            last_log: now,
            done: 0,
            total,
        }
    }

    /// One more item done; `msg` describes it (e.g. `block 17`).
    pub fn inc(&mut self, msg: impl FnOnce() -> String) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.set_message(msg());
            bar.inc(1);
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.last_log) >= LOG_EVERY {
            self.last_log = now;
            let rate = self.done as f64 / now.duration_since(self.start).as_secs_f64();
            match self.total {
                Some(t) => info!(
                    "{}: {}/{} ({rate:.1}/s), {}",
                    self.label,
                    self.done,
                    t,
                    msg()
                ),
                None => info!("{}: {} ({rate:.1}/s), {}", self.label, self.done, msg()),
            }
        }
    }

    /// Runs `f` with the bar hidden (for printing to a terminal beside it).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
