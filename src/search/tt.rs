//! Transposition table: buckets of four 16-byte entries (one cache line), shared by all
//! search threads (lazy SMP) without locks.
//!
//! The sharing model: each entry is two `AtomicU64` words, `data` and `check = key ^
//! data`, each written and read with one relaxed atomic access, so there is no data race
//! and no torn word. The two words of an entry are not written together: a reader may
//! see `data` from one store and `check` from another (of the same or another thread).
//! A probe accepts an entry only if `check ^ data` equals the probed key, so a mixed pair
//! is taken only if two stores' words happen to XOR to that key, which is as likely as a
//! 64-bit hash collision. What a probe returns is therefore the `data` of some store for
//! that key (perhaps an older one, or one that a concurrent store is replacing), and the
//! search treats it as a hint: the move is checked for legality before use. Relaxed
//! ordering is enough because nothing else is published through the table.
//! `tests::threads_never_see_another_keys_data` hammers this from several threads.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::game::Pos;

use crate::score::{from_tt, to_tt};

use super::params::ONE_PLY;
use super::table_memory::ZeroedBuffer;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

#[derive(Copy, Clone, Debug)]
pub(crate) struct TtHit {
    pub best: Pos,
    pub score: i32,
    pub eval: i32,
    /// In `ONE_PLY` units, kept in 8 bits: a depth beyond `MAX_STORED_DEPTH` (31¾ plies)
    /// is stored as that, which can only cost a cut-off, never give a wrong one.
    pub depth: i32,
    pub bound: Bound,
}

struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

/// `n` zeroed entries (`ZeroedBuffer`: mapped lazily, so a large table costs no time to
/// allocate and no memory until it is used; on 2 MiB pages where Linux gives them).
fn zeroed_entries(n: usize) -> ZeroedBuffer<Entry> {
    // SAFETY: all-zero bytes are a valid `Entry` (`AtomicU64` has the bit validity of
    // `u64`).
    unsafe { ZeroedBuffer::new(n) }
}

const BUCKET: usize = 4;
pub(crate) const ENTRY_BYTES: usize = 16;

pub(crate) struct TranspositionTable {
    entries: ZeroedBuffer<Entry>,
    buckets: usize,
    generation: u8,
    /// A search has run since the table was made or cleared (it may hold entries).
    used: bool,
}

/// The deepest depth an entry holds (the 8-bit field), in `ONE_PLY` units.
const MAX_STORED_DEPTH: i32 = i8::MAX as i32;

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6
fn pack(best: Pos, score: i32, eval: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    (best.index() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth.clamp(-100, MAX_STORED_DEPTH) as i8) as u8 as u64) << 48)
        | ((bound as u64) << 56)
        | (((generation & 63) as u64) << 58)
}

fn unpack_depth(data: u64) -> i32 {
    (data >> 48) as u8 as i8 as i32
}

fn unpack_bound(data: u64) -> Option<Bound> {
    match (data >> 56) & 3 {
        1 => Some(Bound::Upper),
        2 => Some(Bound::Lower),
        3 => Some(Bound::Exact),
        _ => None,
    }
}

fn unpack_generation(data: u64) -> u8 {
    (data >> 58) as u8 & 63
}

impl TranspositionTable {
    /// A table of about `bytes` bytes (at least one bucket).
    pub(crate) fn new(bytes: usize) -> TranspositionTable {
        let buckets = (bytes / (ENTRY_BYTES * BUCKET)).max(1);
        TranspositionTable {
            entries: zeroed_entries(buckets * BUCKET),
            buckets,
            generation: 0,
            used: false,
        }
    }

    /// Touch every 4 KiB of the table (the value read written back: a write, which maps
    /// the page, where a read would map the shared zero page; no search runs), so that the first
    /// search after an allocation pays no page faults: the kernel zeroes a lazily mapped
    /// page at its first touch, and for a table of hundreds of MiB on 2 MiB pages that
    /// cost the first move most of its time.
    pub(crate) fn prefault(&mut self) {
        for e in self.entries.iter().step_by(4096 / ENTRY_BYTES) {
            e.check.store(e.check.load(Ordering::Relaxed), Ordering::Relaxed);
        }
    }

    pub(crate) fn size_bytes(&self) -> usize {
        self.entries.len() * ENTRY_BYTES
    }

    /// Forget everything. Zeros written in place, not a fresh mapping: on a fresh one the
    /// next search pays a page fault and the kernel's zeroing for every page it touches
    /// (about 0.4 s for 512 MiB here, spread over its first nodes), where writing zeros
    /// to resident memory takes milliseconds (pages no search touched are faulted in
    /// here once, outside any turn). A table no search has used is still zero.
    pub(crate) fn clear(&mut self) {
        if self.used {
            self.entries.zero();
            self.used = false;
        }
        self.generation = 0;
    }

    /// Start a new search: older entries become preferred victims.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
        self.used = true;
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Entry] {
        let b = ((key as u128 * self.buckets as u128) >> 64) as usize;
        &self.entries[b * BUCKET..(b + 1) * BUCKET]
    }

    /// Ask for `key`'s bucket to be brought into the cache (a hint; no effect on results).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is part of every x86_64 target; a prefetch never faults and
            // changes no memory, and the address is inside the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(self.bucket(key).as_ptr() as *const i8) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub(crate) fn probe(&self, key: u64, ply: i32) -> Option<TtHit> {
        for e in self.bucket(key) {
            let data = e.data.load(Ordering::Relaxed);
            if data != 0 && e.check.load(Ordering::Relaxed) ^ data == key {
                let bound = unpack_bound(data)?;
                return Some(TtHit {
                    best: Pos::from_index((data & 0xFFFF) as usize),
                    score: from_tt((data >> 16) as u16 as i16 as i32, ply),
                    eval: (data >> 32) as u16 as i16 as i32,
                    depth: unpack_depth(data),
                    bound,
                });
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store(&self, key: u64, ply: i32, best: Pos, score: i32, eval: i32, depth: i32, bound: Bound) {
        let data = pack(best, to_tt(score, ply), eval, depth, bound, self.generation);
        self.place(key, data, depth, bound);
    }

    /// Every entry that holds something, as (key, data): what `insert` takes back.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.entries.iter().filter_map(|e| {
            let data = e.data.load(Ordering::Relaxed);
            (data != 0).then(|| (e.check.load(Ordering::Relaxed) ^ data, data))
        })
    }

    /// An entry from `entries` (perhaps of a table of another size), as of this search:
    /// it competes for its bucket's places as a store does.
    pub(crate) fn insert(&mut self, key: u64, data: u64) {
        self.used = true;
        let data = (data & !(63 << 58)) | (((self.generation & 63) as u64) << 58);
        if let Some(bound) = unpack_bound(data) {
            self.place(key, data, unpack_depth(data), bound); // else no store wrote it
        }
    }

    /// Per mille of the first entries (up to 4,000) that hold something (YXSHOWHASHUSAGE).
    pub(crate) fn usage_permille(&self) -> usize {
        let sample = &self.entries[..self.entries.len().min(4000)];
        let full = sample.iter().filter(|e| e.data.load(Ordering::Relaxed) != 0).count();
        full * 1000 / sample.len()
    }

    /// Put `data` in `key`'s bucket: over the same key, else over the shallowest entry.
    #[inline]
    fn place(&self, key: u64, data: u64, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        // Same key first; otherwise the entry with the lowest depth, older generations first.
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for (i, e) in bucket.iter().enumerate() {
            let data = e.data.load(Ordering::Relaxed);
            if data == 0 || e.check.load(Ordering::Relaxed) ^ data == key {
                if data != 0 && bound != Bound::Exact && depth + 2 * ONE_PLY < unpack_depth(data) {
                    return; // keep the deeper result for the same position
                }
                victim = i;
                break;
            }
            let age = (self.generation.wrapping_sub(unpack_generation(data)) & 63) as i32;
            let value = unpack_depth(data) - 4 * ONE_PLY * age;
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        bucket[victim].data.store(data, Ordering::Relaxed);
        bucket[victim].check.store(key ^ data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::WIN;

    #[test]
    fn store_and_probe_roundtrip() {
        let tt = TranspositionTable::new(1 << 16);
        let p = Pos::new(7, 8);
        tt.store(0xDEAD_BEEF_1234, 3, p, -123, 45, 9, Bound::Lower);
        let hit = tt.probe(0xDEAD_BEEF_1234, 3).expect("hit");
        assert_eq!(
            (hit.best, hit.score, hit.eval, hit.depth, hit.bound),
            (p, -123, 45, 9, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEF_1235, 3).is_none());
        // Mate scores are stored relative to the node and restored at another ply.
        tt.store(42, 4, p, WIN - 10, 0, -3, Bound::Exact);
        let hit = tt.probe(42, 6).expect("hit");
        assert_eq!(hit.score, WIN - 12);
        assert_eq!(hit.depth, -3);
    }

    #[test]
    fn clearing_forgets_what_a_search_stored() {
        let mut tt = TranspositionTable::new(4 << 20);
        let keys: Vec<u64> = (1..1000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        for round in 0..2 {
            tt.new_search();
            for &k in &keys {
                tt.store(k, 0, Pos::new(1, 2), round, 0, 4, Bound::Exact);
            }
            assert!(keys.iter().all(|&k| tt.probe(k, 0).is_some()));
            tt.clear();
            assert!(keys.iter().all(|&k| tt.probe(k, 0).is_none()));
        }
    }

    #[test]
    fn a_depth_beyond_the_field_is_stored_as_the_deepest_it_holds() {
        let tt = TranspositionTable::new(1 << 16);
        let p = Pos::new(7, 8);
        tt.store(7, 0, p, 10, 0, 40 * ONE_PLY, Bound::Lower);
        let hit = tt.probe(7, 0).expect("hit");
        assert_eq!(hit.depth, MAX_STORED_DEPTH);
    }

    /// Everything stored for key `k` is derived from `k`.
    fn fields(k: u64) -> (Pos, i32, i32, i32) {
        let best = Pos::from_index((k % 1000) as usize);
        let score = (k >> 20) as i32 % 5000;
        let eval = (k >> 40) as i32 % 5000;
        let depth = (k >> 10) as i32 % 60;
        (best, score, eval, depth)
    }

    #[test]
    fn threads_never_see_another_keys_data() {
        // A tiny table (16 buckets) so that threads fight over the same entries.
        let tt = TranspositionTable::new(16 * BUCKET * ENTRY_BYTES);
        let keys: Vec<u64> = (1..=200u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        let hits = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..4 {
                let (tt, keys, hits) = (&tt, &keys, &hits);
                s.spawn(move || {
                    for round in 0..20_000 {
                        let k = keys[(round * 7 + t * 13) % keys.len()];
                        let (best, score, eval, depth) = fields(k);
                        tt.store(k, 0, best, score, eval, depth, Bound::Exact);
                        let probe = keys[(round * 11 + t * 5) % keys.len()];
                        if let Some(hit) = tt.probe(probe, 0) {
                            assert_eq!((hit.best, hit.score, hit.eval, hit.depth), fields(probe));
                            hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(hits.into_inner() > 1000, "the probes must find entries to check");
    }
}
