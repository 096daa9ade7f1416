//! Names as Kubernetes makes them: random suffixes from apimachinery's alphabet,
//! pod-template hashes, uids, all from the simulation's one seeded generator.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

/// apimachinery `util/rand`'s alphabet: no vowels (no accidental words), no
/// look-alikes (0, 1, 3).
pub const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The simulation's only source of randomness. A clone continues exactly as a
/// generator restored from [`SimRng::state`] would.
#[derive(Clone)]
pub struct SimRng(ChaCha8Rng);

/// A [`SimRng`]'s position, as snapshots keep it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RngState {
    seed: [u8; 32],
    stream: u64,
    word_pos: String,
}

impl Serialize for SimRng {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.state().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SimRng {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let state = RngState::deserialize(deserializer)?;
        SimRng::from_state(&state).map_err(serde::de::Error::custom)
    }
}

impl SimRng {
    pub fn new(seed: u64) -> Self {
        SimRng(ChaCha8Rng::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        self.0.next_u64() % n
    }

    /// `len` characters from [`ALPHANUMS`], as `generateName` suffixes are made.
    pub fn suffix(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| ALPHANUMS[self.below(ALPHANUMS.len() as u64) as usize] as char)
            .collect()
    }

    /// Where the generator stands: its seed, stream and word position. Together they
    /// restore it exactly ([`SimRng::from_state`]).
    pub(crate) fn state(&self) -> RngState {
        RngState {
            seed: self.0.get_seed(),
            stream: self.0.get_stream(),
            // u128 does not fit a JSON number every reader accepts.
            word_pos: self.0.get_word_pos().to_string(),
        }
    }

    /// The generator at a saved position.
    pub(crate) fn from_state(state: &RngState) -> Result<SimRng, String> {
        let pos: u128 = state
            .word_pos
            .parse()
            .map_err(|_| format!("invalid word position {:?}", state.word_pos))?;
        let mut rng = ChaCha8Rng::from_seed(state.seed);
        rng.set_stream(state.stream);
        rng.set_word_pos(pos);
        Ok(SimRng(rng))
    }

    /// A version-4 style UUID.
    pub fn uid(&mut self) -> String {
        let a = self.0.next_u64();
        let b = self.0.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            (a >> 32) as u32,
            (a >> 16) as u16,
            (a as u16) & 0x0fff,
            (((b >> 48) as u16) & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        )
    }
}

/// FNV-32a, the hash upstream uses for pod-template-hash.
pub fn fnv32a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in data {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// apimachinery `rand.SafeEncodeString`: each byte mapped into [`ALPHANUMS`].
/// Applied to a decimal number it yields only `4-9, b, c, d, f`.
pub fn safe_encode(s: &str) -> String {
    s.bytes()
        .map(|b| ALPHANUMS[b as usize % ALPHANUMS.len()] as char)
        .collect()
}

/// The pod-template-hash label value for a template's canonical bytes and a
/// collision count: FNV-32a, printed in decimal, then safe-encoded.
///
/// Upstream hashes Go's deep-printed form of the template (`hashutil.DeepHashObject`);
/// we hash the canonical JSON instead, so values look like real ones but differ.
pub fn pod_template_hash(template_json: &[u8], collision_count: Option<i32>) -> String {
    let mut data = template_json.to_vec();
    if let Some(c) = collision_count {
        data.extend_from_slice(&c.to_le_bytes());
    }
    safe_encode(&fnv32a(&data).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_use_the_upstream_alphabet() {
        let mut r = SimRng::new(1);
        let s = r.suffix(5);
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|b| ALPHANUMS.contains(&b)));
    }

    #[test]
    fn template_hash_uses_only_safe_digits() {
        let h = pod_template_hash(b"{\"spec\":{}}", None);
        assert!(!h.is_empty() && h.len() <= 10);
        assert!(h.chars().all(|c| "456789bcdf".contains(c)), "{h}");
    }

    #[test]
    fn fnv32a_matches_reference_values() {
        assert_eq!(fnv32a(b""), 0x811c9dc5);
        assert_eq!(fnv32a(b"a"), 0xe40c292c);
    }

    #[test]
    fn a_restored_generator_continues_where_the_saved_one_stood() {
        let mut a = SimRng::new(3);
        a.suffix(7);
        let mut b = SimRng::from_state(&a.state()).unwrap();
        assert_eq!(a.uid(), b.uid());
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn same_seed_same_names() {
        let mut a = SimRng::new(7);
        let mut b = SimRng::new(7);
        assert_eq!(a.uid(), b.uid());
        assert_eq!(a.suffix(5), b.suffix(5));
    }
}
