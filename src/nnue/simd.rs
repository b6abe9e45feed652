//! The accumulator arithmetic, in a plain scalar reference and an AVX2 path through
//! `std::arch`, chosen at run time (`Kernel::detect`). Every path is integer and exact
//! (wrapping i16 rows, i32 sums that cannot overflow: features are 0..=QA, weights i16),
//! so each gives the scalar reference's results bit for bit (tested below).

use super::{Row, CHANNELS, QA};

/// The row arithmetic, for code written once over every path (`NetEvaluator::sync`
/// compiles its catch-up for each, the AVX2 one inside an AVX2 function, so that these
/// inline).
pub trait Ops {
    fn replace(acc: &mut Row, sub: &Row, add: &Row);
    fn add(acc: &mut Row, add: &Row);
    fn feature_delta(sum: &mut [i32; CHANNELS], before: &Row, after: &Row);
}

/// The scalar reference's `Ops`.
pub struct ScalarOps;

impl Ops for ScalarOps {
    #[inline(always)]
    fn replace(acc: &mut Row, sub: &Row, add: &Row) {
        scalar::replace(acc, sub, add)
    }
    #[inline(always)]
    fn add(acc: &mut Row, add: &Row) {
        scalar::add(acc, add)
    }
    #[inline(always)]
    fn feature_delta(sum: &mut [i32; CHANNELS], before: &Row, after: &Row) {
        scalar::feature_delta(sum, before, after)
    }
}

/// The AVX2 path's `Ops`: only for code that runs where the CPU has AVX2 (`Kernel::Avx2`).
#[cfg(target_arch = "x86_64")]
pub struct Avx2Ops;

#[cfg(target_arch = "x86_64")]
impl Ops for Avx2Ops {
    #[inline(always)]
    fn replace(acc: &mut Row, sub: &Row, add: &Row) {
        // SAFETY: `Avx2Ops` is used only under `Kernel::Avx2`, chosen where the CPU has AVX2.
        unsafe { avx2::replace(acc, sub, add) }
    }
    #[inline(always)]
    fn add(acc: &mut Row, add: &Row) {
        // SAFETY: as in `replace`.
        unsafe { avx2::add(acc, add) }
    }
    #[inline(always)]
    fn feature_delta(sum: &mut [i32; CHANNELS], before: &Row, after: &Row) {
        // SAFETY: as in `replace`.
        unsafe { avx2::feature_delta(sum, before, after) }
    }
}

/// The arithmetic a `NetEvaluator` uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernel {
    /// The fastest path this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel::Avx2;
        }
        Kernel::Scalar
    }

    /// Every path this CPU runs (for the tests).
    pub fn available() -> Vec<Kernel> {
        let mut out = vec![Kernel::Scalar];
        if Kernel::detect() != Kernel::Scalar {
            out.push(Kernel::detect());
        }
        out
    }

    /// `acc += add - sub`, wrapping.
    #[inline]
    pub fn replace(self, acc: &mut Row, sub: &Row, add: &Row) {
        match self {
            Kernel::Scalar => scalar::replace(acc, sub, add),
            // SAFETY: `Avx2` is only chosen where the CPU has AVX2 (`detect`).
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::replace(acc, sub, add) },
        }
    }

    /// `acc += add`, wrapping.
    #[inline]
    pub fn add(self, acc: &mut Row, add: &Row) {
        match self {
            Kernel::Scalar => scalar::add(acc, add),
            // SAFETY: as in `replace`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::add(acc, add) },
        }
    }

    /// `sum += features(after) - features(before)`, features being the clip to 0..=QA.
    #[inline]
    pub fn feature_delta(self, sum: &mut [i32; CHANNELS], before: &Row, after: &Row) {
        match self {
            Kernel::Scalar => scalar::feature_delta(sum, before, after),
            // SAFETY: as in `replace`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::feature_delta(sum, before, after) },
        }
    }

    /// `Σ w[c] · features(acc)[c]`.
    #[inline]
    pub fn dot_features(self, w: &Row, acc: &Row) -> i32 {
        match self {
            Kernel::Scalar => scalar::dot_features(w, acc),
            // SAFETY: as in `replace`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { avx2::dot_features(w, acc) },
        }
    }
}

/// The reference: one channel at a time.
pub mod scalar {
    use super::*;

    #[inline]
    pub fn feature(a: i16) -> i32 {
        a.clamp(0, QA as i16) as i32
    }

    pub fn replace(acc: &mut Row, sub: &Row, add: &Row) {
        for c in 0..CHANNELS {
            acc[c] = acc[c].wrapping_sub(sub[c]).wrapping_add(add[c]);
        }
    }

    pub fn add(acc: &mut Row, add: &Row) {
        for c in 0..CHANNELS {
            acc[c] = acc[c].wrapping_add(add[c]);
        }
    }

    pub fn feature_delta(sum: &mut [i32; CHANNELS], before: &Row, after: &Row) {
        for c in 0..CHANNELS {
            sum[c] += feature(after[c]) - feature(before[c]);
        }
    }

    pub fn dot_features(w: &Row, acc: &Row) -> i32 {
        (0..CHANNELS).map(|c| w[c] as i32 * feature(acc[c])).sum()
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::*;

    // Two 256-bit lanes of 16 i16 hold a row.
    const _: () = assert!(CHANNELS == 32);

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(r: &Row, half: usize) -> __m256i {
        // SAFETY: `half` is 0 or 1, and a row is 32 i16: 16 from `half * 16` are inside.
        unsafe { _mm256_loadu_si256(r.as_ptr().add(half * 16) as *const __m256i) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store(r: &mut Row, half: usize, v: __m256i) {
        // SAFETY: as in `load`.
        unsafe { _mm256_storeu_si256(r.as_mut_ptr().add(half * 16) as *mut __m256i, v) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn clip(v: __m256i) -> __m256i {
        _mm256_min_epi16(
            _mm256_max_epi16(v, _mm256_setzero_si256()),
            _mm256_set1_epi16(QA as i16),
        )
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn replace(acc: &mut Row, sub: &Row, add: &Row) {
        for half in 0..2 {
            // SAFETY: rows of 32 i16 (`load`).
            unsafe {
                let v = _mm256_add_epi16(_mm256_sub_epi16(load(acc, half), load(sub, half)), load(add, half));
                store(acc, half, v);
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn add(acc: &mut Row, add: &Row) {
        for half in 0..2 {
            // SAFETY: rows of 32 i16 (`load`).
            unsafe { store(acc, half, _mm256_add_epi16(load(acc, half), load(add, half))) }
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn feature_delta(sum: &mut [i32; CHANNELS], before: &Row, after: &Row) {
        for half in 0..2 {
            // SAFETY: rows of 32 i16 (`load`); `sum` holds 32 i32, 8 at each of
            // `half * 16` and `half * 16 + 8`.
            unsafe {
                // Features are 0..=QA, so their difference fits an i16.
                let d = _mm256_sub_epi16(clip(load(after, half)), clip(load(before, half)));
                let lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(d));
                let hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(d, 1));
                let p = sum.as_mut_ptr().add(half * 16) as *mut __m256i;
                _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), lo));
                let q = p.add(1);
                _mm256_storeu_si256(q, _mm256_add_epi32(_mm256_loadu_si256(q), hi));
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn dot_features(w: &Row, acc: &Row) -> i32 {
        // SAFETY: rows of 32 i16 (`load`).
        unsafe {
            // Products of an i16 and 0..=QA, summed in pairs: no i32 overflows.
            let a = _mm256_madd_epi16(load(w, 0), clip(load(acc, 0)));
            let b = _mm256_madd_epi16(load(w, 1), clip(load(acc, 1)));
            let s = _mm256_add_epi32(a, b);
            let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
            _mm_cvtsi128_si32(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::zobrist::splitmix64;

    fn random_row(rng: &mut u64) -> Row {
        // Extremes as well as the usual range, so that wrapping and clipping are exercised.
        std::array::from_fn(|_| match splitmix64(rng) % 8 {
            0 => i16::MIN,
            1 => i16::MAX,
            2 => QA as i16,
            _ => splitmix64(rng) as i16 >> (splitmix64(rng) % 12),
        })
    }

    #[test]
    fn every_path_equals_the_scalar_reference() {
        let mut rng = 5u64;
        for kernel in Kernel::available() {
            for _ in 0..2000 {
                let (a, b, c) = (random_row(&mut rng), random_row(&mut rng), random_row(&mut rng));
                let (mut x, mut y) = (a, a);
                Kernel::Scalar.replace(&mut x, &b, &c);
                kernel.replace(&mut y, &b, &c);
                assert_eq!(x, y, "{kernel:?} replace");
                Kernel::Scalar.add(&mut x, &c);
                kernel.add(&mut y, &c);
                assert_eq!(x, y, "{kernel:?} add");
                let start: [i32; CHANNELS] = std::array::from_fn(|_| splitmix64(&mut rng) as i32 >> 4);
                let (mut s, mut t) = (start, start);
                Kernel::Scalar.feature_delta(&mut s, &a, &b);
                kernel.feature_delta(&mut t, &a, &b);
                assert_eq!(s, t, "{kernel:?} feature_delta");
                assert_eq!(
                    Kernel::Scalar.dot_features(&b, &a),
                    kernel.dot_features(&b, &a),
                    "{kernel:?} dot"
                );
            }
        }
    }

    #[test]
    fn the_reference_does_what_it_says() {
        let mut acc = [0i16; CHANNELS];
        acc[0] = i16::MAX;
        acc[1] = -5;
        acc[2] = 300;
        let one = [1i16; CHANNELS];
        scalar::add(&mut acc, &one);
        assert_eq!((acc[0], acc[1], acc[2], acc[3]), (i16::MIN, -4, 301, 1));
        let mut sum = [0; CHANNELS];
        scalar::feature_delta(&mut sum, &[0; CHANNELS], &acc);
        assert_eq!((sum[0], sum[1], sum[2], sum[3]), (0, 0, QA, 1));
        assert_eq!(scalar::dot_features(&[2; CHANNELS], &acc), 2 * (QA + 29));
    }
}
