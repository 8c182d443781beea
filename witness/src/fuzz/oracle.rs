//! The oracle of the mutation and fuzzing campaigns: what an honest witness or fractional
//! proof proves is the truth, and a mutant the verifier accepts may claim only true things.
//!
//! A [`Truth`] is taken from the honest original as the verifier reports it (or, where the
//! whole pre-state is known, from that state as well, [`Truth::with_state`]). An accepted
//! mutant is held to it claim by claim ([`Truth::check_witness`], [`Truth::check_fractional`]):
//! 1. its pre-state root is the original's, as a point: another encoding of the same point
//!    is the same claim (for a fractional proof, the root its anchor binds: the state root
//!    or the coordinator root; the other is not proven, `spec/FRACTIONAL.md` §5.2);
//! 2. every node it proves is one the original proves at the same path, of the same kind,
//!    with the same commitment and (a leaf) the same stem — or, where the whole state is
//!    known, an empty slot that no key of the state lies under;
//! 3. every key's proven current value is the true one: the original's for its own keys,
//!    absent under a node where the original proves absence (an empty slot, or a leaf of
//!    another stem), the state's where the state is known. A key proven absent through an
//!    unbound absence ([`ProvenKey::bound`](crate::ProvenKey::bound)) is what the
//!    EIP-6800 format cannot bind: counted in [`Checked::unbound_keys`], never a false claim;
//! 4. its post-state roots: when its writes are the original's (give or take writes of a
//!    key's current value) they equal the original's; otherwise they equal the roots a
//!    caller that knows the state computes for those writes, or, without one, differ from
//!    the original's (for a fractional proof, the root its anchor binds). Skipped when the
//!    mutant has unbound writes (its post-state root is then
//!    reported as trusting the prover).

use crate::prelude::*;

use alloc::collections::BTreeMap;
use core::fmt;

use banderwagon::Element;

use crate::fractional::{Anchor, VerifiedFractional};
use crate::preset::STEM_LEN;
use crate::verify::{NodeKind, VerifiedWitness};

/// A tree key `stem ‖ suffix`.
pub type Key = [u8; 32];
/// A value; `None` = absent.
pub type Slot = Option<[u8; 32]>;
/// Writes in key order: `Some` sets the key, `None` deletes it.
pub type Writes = Vec<(Key, Slot)>;

/// What a proven node is, as the oracle compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeFact {
    /// Its kind.
    pub kind: NodeKind,
    /// Its commitment, compressed.
    pub commitment: [u8; 32],
    /// For a leaf, its stem.
    pub leaf_stem: Option<[u8; STEM_LEN]>,
}

/// The roots after a set of writes: the canonical one and, for a fractional proof that
/// carries the coordinator path, the coordinator one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roots {
    /// The canonical EIP-6800 root.
    pub canonical: [u8; 32],
    /// The coordinator root, when known.
    pub coordinator: Option<[u8; 32]>,
}

/// A claim of an accepted mutant that the truth contradicts.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FalseClaim {
    /// Accepted against another root.
    Root {
        /// Which root: `"pre-state"` or `"coordinator"`.
        which: &'static str,
        /// The root it hangs from.
        got: [u8; 32],
        /// The true root.
        expected: [u8; 32],
    },
    /// Proves a node the original does not prove, or proves differently.
    Node {
        /// The node's path.
        path: Vec<u8>,
        /// What the mutant proves there.
        got: NodeFact,
        /// What the original proves there (`None`: nothing).
        expected: Option<NodeFact>,
    },
    /// Proves a key's current value falsely.
    Value {
        /// The key.
        key: Key,
        /// The proven value.
        got: Slot,
        /// The true value (`None`: the truth does not cover the key).
        expected: Option<Slot>,
    },
    /// Its post-state roots are not the roots of its writes.
    PostRoot {
        /// The roots it computes.
        got: Roots,
        /// The true roots of its writes (`None`: unknown, but they must differ from the
        /// original's, which they equal).
        expected: Option<Roots>,
        /// Whether its writes are the original's.
        same_writes: bool,
    },
    /// Verified, yet its post-state roots could not be computed.
    PostStateFailed(String),
}

fn hex32(b: &[u8]) -> String {
    let mut s = String::from("0x");
    s.push_str(&hex::encode(b));
    s
}

fn show(v: &Slot) -> String {
    v.as_ref().map_or_else(|| "absent".to_owned(), |v| hex32(v))
}

impl fmt::Display for FalseClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FalseClaim::Root {
                which,
                got,
                expected,
            } => write!(
                f,
                "accepted against {which} root {} instead of {}",
                hex32(got),
                hex32(expected)
            ),
            FalseClaim::Node {
                path,
                got,
                expected,
            } => write!(
                f,
                "proves {got:?} at path {}, where the original proves {expected:?}",
                hex32(path)
            ),
            FalseClaim::Value { key, got, expected } => write!(
                f,
                "proves key {} {}, where the truth is {}",
                hex32(key),
                show(got),
                expected.as_ref().map_or_else(|| "unknown".to_owned(), show)
            ),
            FalseClaim::PostRoot {
                got,
                expected,
                same_writes,
            } => write!(
                f,
                "post-state roots {got:?} for {} writes; expected {}",
                if *same_writes {
                    "the original's"
                } else {
                    "other"
                },
                expected.map_or_else(
                    || "other roots than the original's".to_owned(),
                    |e| { format!("{e:?}") }
                )
            ),
            FalseClaim::PostStateFailed(e) => write!(f, "verified, then post-state failed: {e}"),
        }
    }
}

/// What a check found besides its verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Keys proven absent through an unbound absence whose claim the truth contradicts or
    /// cannot judge (reported by the verifier, so not false claims).
    pub unbound_keys: usize,
    /// Whether the post-state roots were checked (not when the mutant has unbound writes).
    pub post_state: bool,
    /// Whether the mutant's writes are the original's.
    pub same_writes: bool,
}

/// One fact of a [`Truth`], replaced by [`Truth::with_fact`] to show that the oracle fails
/// when the truth and a verified witness disagree on it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fact {
    /// The pre-state root.
    PreRoot([u8; 32]),
    /// The node proven at a path (`None`: none).
    Node(Vec<u8>, Option<NodeFact>),
    /// A bound key's pre-state value.
    PreValue(Key, Slot),
    /// The writes that change a value, in key order.
    Writes(Writes),
    /// The post-state roots.
    PostRoots(Roots),
}

/// The roots of a set of writes on the true pre-state, for a caller that knows that state.
pub type TruePost<'a> = &'a mut dyn FnMut(&Writes) -> Option<Roots>;

/// What the honest original proves, and what its writes give.
#[derive(Clone, Debug)]
pub struct Truth {
    pre_root: [u8; 32],
    coordinator_root: Option<[u8; 32]>,
    /// The original's bound keys with their pre-state values.
    pre: BTreeMap<Key, Slot>,
    /// The whole pre-state, when known (a key not in it is absent).
    state: Option<BTreeMap<Key, [u8; 32]>>,
    nodes: BTreeMap<Vec<u8>, NodeFact>,
    /// The original's writes that change a value.
    writes: Writes,
    post: Roots,
    /// Whether post-state roots are checked also when the mutant has unbound writes.
    unbound_post: bool,
}

/// The writes of a verified witness that change a value, in key order.
fn effective_writes(v: &VerifiedWitness) -> Writes {
    v.keys()
        .iter()
        .filter_map(|k| {
            let after = if k.deleted {
                None
            } else {
                k.new_value.or(k.current_value)
            };
            (after != k.current_value).then(|| (k.key(), after))
        })
        .collect()
}

fn same_point(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a == b
        || matches!(
            (Element::from_bytes(a), Element::from_bytes(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

impl Truth {
    fn from_parts(v: &VerifiedWitness, coordinator_root: Option<[u8; 32]>, post: Roots) -> Truth {
        let pre = v
            .keys()
            .iter()
            .filter(|k| k.bound)
            .map(|k| (k.key(), k.current_value))
            .collect();
        let nodes = v
            .nodes()
            .iter()
            .map(|n| {
                (
                    n.path.as_bytes().to_vec(),
                    NodeFact {
                        kind: n.kind,
                        commitment: n.commitment.to_bytes(),
                        leaf_stem: n.leaf_stem,
                    },
                )
            })
            .collect();
        Truth {
            pre_root: *v.pre_state_root(),
            coordinator_root,
            pre,
            state: None,
            nodes,
            writes: effective_writes(v),
            post,
            unbound_post: false,
        }
    }

    /// The truth of an honest standard witness, verified.
    ///
    /// # Errors
    /// Its post-state root cannot be computed.
    pub fn of_witness(v: &VerifiedWitness) -> Result<Truth, crate::PostStateError> {
        let canonical = v.post_state_root()?;
        Ok(Truth::from_parts(
            v,
            None,
            Roots {
                canonical,
                coordinator: None,
            },
        ))
    }

    /// The truth of an honest fractional proof, verified.
    ///
    /// # Errors
    /// Its post-state roots cannot be computed.
    pub fn of_fractional(
        v: &VerifiedFractional,
    ) -> Result<Truth, crate::fractional::FractionalVerifyError> {
        let (canonical, coordinator) = v.post_roots()?;
        let mut t = Truth::from_parts(
            v.witness(),
            v.coordinator_root().copied(),
            Roots {
                canonical,
                coordinator,
            },
        );
        t.pre_root = *v.state_root();
        Ok(t)
    }

    /// The same truth with the whole pre-state known (present keys and their values):
    /// every key's current value is then checked, not only those the original covers.
    pub fn with_state(mut self, state: BTreeMap<Key, [u8; 32]>) -> Truth {
        self.state = Some(state);
        self
    }

    /// The same truth with the coordinator root known (for an original that does not
    /// carry the coordinator path).
    pub fn with_coordinator_root(mut self, root: [u8; 32]) -> Truth {
        self.coordinator_root = Some(root);
        self
    }

    /// The same truth with `fact` in place of what the original proves.
    pub fn with_fact(mut self, fact: Fact) -> Truth {
        match fact {
            Fact::PreRoot(root) => self.pre_root = root,
            Fact::Node(path, Some(node)) => {
                self.nodes.insert(path, node);
            }
            Fact::Node(path, None) => {
                self.nodes.remove(&path);
            }
            Fact::PreValue(key, value) => {
                self.pre.insert(key, value);
            }
            Fact::Writes(writes) => self.writes = writes,
            Fact::PostRoots(roots) => self.post = roots,
        }
        self
    }

    /// The same truth checking the post-state roots also of a mutant with unbound writes
    /// (whose roots the verifier reports as trusting the prover): for mutants that are not
    /// re-proven, whose unbound writes are still the honest prover's.
    pub fn with_unbound_post(mut self) -> Truth {
        self.unbound_post = true;
        self
    }

    /// The original's post-state roots.
    pub fn post_roots(&self) -> Roots {
        self.post
    }

    /// The pre-state value of `key` when known: `Some(Some(v))` present with `v`,
    /// `Some(None)` absent, `None` unknown.
    pub fn known_pre(&self, key: &Key) -> Option<Slot> {
        if let Some(state) = &self.state {
            return Some(state.get(key).copied());
        }
        if let Some(v) = self.pre.get(key) {
            return Some(*v);
        }
        let stem = key.get(..STEM_LEN)?;
        for depth in 0..=STEM_LEN {
            let fact = self.nodes.get(stem.get(..depth)?)?;
            match (fact.kind, fact.leaf_stem) {
                (NodeKind::Internal, _) => continue,
                (NodeKind::Empty, _) => return Some(None),
                (NodeKind::Leaf, Some(other)) if other.as_slice() != stem => return Some(None),
                _ => return None,
            }
        }
        None
    }

    /// Whether the whole pre-state is known and holds no key under `path` (an empty slot
    /// there is true).
    fn empty_in_state(&self, path: &[u8]) -> bool {
        self.state
            .as_ref()
            .is_some_and(|st| !path.is_empty() && !st.keys().any(|k| k.starts_with(path)))
    }

    /// Checks every claim of an accepted standard witness (the original's mutant).
    ///
    /// # Errors
    /// The first false claim.
    pub fn check_witness(
        &self,
        v: &VerifiedWitness,
        true_post: Option<TruePost<'_>>,
    ) -> Result<Checked, Box<FalseClaim>> {
        self.check_root("pre-state", v.pre_state_root(), &self.pre_root)?;
        let mut checked = self.check_pre(v)?;
        let post = v
            .post_state_root()
            .map_err(|e| Box::new(FalseClaim::PostStateFailed(e.to_string())))?;
        self.check_post(
            v,
            Roots {
                canonical: post,
                coordinator: None,
            },
            true,
            true_post,
            &mut checked,
        )?;
        Ok(checked)
    }

    /// Checks every claim of an accepted fractional proof (the original's mutant) that its
    /// anchor binds (`spec/FRACTIONAL.md` §5.2): under `StateRoot`, its state root and its
    /// canonical post-state root; under `CoordinatorRoot`, its coordinator root and its
    /// coordinator post-state root — the other root is not proven to be the state's, so it
    /// is not a claim. Its pre-state (nodes and current values) under both.
    ///
    /// # Errors
    /// The first false claim.
    pub fn check_fractional(
        &self,
        v: &VerifiedFractional,
        anchor: &Anchor,
        true_post: Option<TruePost<'_>>,
    ) -> Result<Checked, Box<FalseClaim>> {
        let by_state_root = matches!(anchor, Anchor::StateRoot(_));
        if by_state_root {
            self.check_root("pre-state", v.state_root(), &self.pre_root)?;
        } else if let (Some(got), Some(expected)) = (v.coordinator_root(), &self.coordinator_root) {
            if got != expected {
                return Err(Box::new(FalseClaim::Root {
                    which: "coordinator",
                    got: *got,
                    expected: *expected,
                }));
            }
        }
        let mut checked = self.check_pre(v.witness())?;
        let (canonical, coordinator) = v
            .post_roots()
            .map_err(|e| Box::new(FalseClaim::PostStateFailed(e.to_string())))?;
        let got = if by_state_root {
            Roots {
                canonical,
                coordinator: None,
            }
        } else {
            Roots {
                canonical: [0u8; 32],
                coordinator,
            }
        };
        self.check_post(v.witness(), got, by_state_root, true_post, &mut checked)?;
        Ok(checked)
    }

    fn check_root(
        &self,
        which: &'static str,
        got: &[u8; 32],
        expected: &[u8; 32],
    ) -> Result<(), Box<FalseClaim>> {
        if same_point(got, expected) {
            Ok(())
        } else {
            Err(Box::new(FalseClaim::Root {
                which,
                got: *got,
                expected: *expected,
            }))
        }
    }

    /// Claims 2 and 3: the proven nodes and current values.
    fn check_pre(&self, v: &VerifiedWitness) -> Result<Checked, Box<FalseClaim>> {
        for n in v.nodes() {
            let got = NodeFact {
                kind: n.kind,
                commitment: n.commitment.to_bytes(),
                leaf_stem: n.leaf_stem,
            };
            let expected = self.nodes.get(n.path.as_bytes()).copied();
            if expected.is_none()
                && got.kind == NodeKind::Empty
                && self.empty_in_state(n.path.as_bytes())
            {
                // An empty slot the original does not open, empty in the known state.
                continue;
            }
            if expected != Some(got) {
                return Err(Box::new(FalseClaim::Node {
                    path: n.path.as_bytes().to_vec(),
                    got,
                    expected,
                }));
            }
        }
        let mut checked = Checked::default();
        for k in v.keys() {
            let key = k.key();
            let known = self.known_pre(&key);
            if known == Some(k.current_value) {
                continue;
            }
            if !k.bound {
                checked.unbound_keys += 1;
                continue;
            }
            return Err(Box::new(FalseClaim::Value {
                key,
                got: k.current_value,
                expected: known,
            }));
        }
        Ok(checked)
    }

    /// Claim 4: the post-state roots; the canonical one when `canonical` (else the
    /// coordinator one).
    fn check_post(
        &self,
        v: &VerifiedWitness,
        got: Roots,
        canonical: bool,
        true_post: Option<TruePost<'_>>,
        checked: &mut Checked,
    ) -> Result<(), Box<FalseClaim>> {
        if v.unbound_writes() > 0 && !self.unbound_post {
            return Ok(());
        }
        checked.post_state = true;
        let writes = effective_writes(v);
        let same_writes = writes == self.writes;
        checked.same_writes = same_writes;
        let expected = if same_writes {
            Some(self.post)
        } else {
            true_post.and_then(|f| f(&writes))
        };
        let ok = match (canonical, expected) {
            (true, Some(e)) => got.canonical == e.canonical,
            (true, None) => got.canonical != self.post.canonical,
            (false, Some(e)) => match (got.coordinator, e.coordinator) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            },
            (false, None) => got.coordinator.is_none() || got.coordinator != self.post.coordinator,
        };
        if ok {
            Ok(())
        } else {
            Err(Box::new(FalseClaim::PostRoot {
                got,
                expected,
                same_writes,
            }))
        }
    }
}
