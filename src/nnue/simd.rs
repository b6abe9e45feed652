//! The accumulator arithmetic, in a plain scalar reference and an AVX2 path through
//! `std::arch`, chosen at run time (`Kernel::detect`). Every path is integer and exact
//! (wrapping i16 rows, i32 sums that cannot overflow: features are 0..=QA, weights i16),
//! so each gives the scalar reference's results bit for bit (tested below).

use super::{Row, CHANNELS, QA};

/// The row arithmetic on values a catch-up keeps in registers, for code written once
/// over every path (`NetEvaluator::sync` compiles its catch-up for each, the AVX2 one
/// inside an AVX2 function, so that these inline): a cell's accumulator is loaded once,
/// its changed rows taken out and added, and the features' sum stays loaded for the
/// whole catch-up.
pub trait Ops {
    /// A row in registers.
    type Acc: Copy;
    /// The features' sum in registers.
    type Sum: Copy;
    fn load(row: &Row) -> Self::Acc;
    fn store(acc: Self::Acc, row: &mut Row);
    /// `acc + row`, wrapping.
    fn add(acc: Self::Acc, row: &Row) -> Self::Acc;
    /// `acc - row`, wrapping.
    fn sub(acc: Self::Acc, row: &Row) -> Self::Acc;
    fn load_sum(sum: &[i32; CHANNELS]) -> Self::Sum;
    fn store_sum(sum: Self::Sum, out: &mut [i32; CHANNELS]);
    /// `sum + features(after) - features(before)`, features being the clip to 0..=QA.
    fn feature_delta(sum: Self::Sum, before: Self::Acc, after: Self::Acc) -> Self::Sum;
}

/// The scalar reference's `Ops`.
pub struct ScalarOps;

impl Ops for ScalarOps {
    type Acc = Row;
    type Sum = [i32; CHANNELS];
    #[inline(always)]
    fn load(row: &Row) -> Row {
        *row
    }
    #[inline(always)]
    fn store(acc: Row, row: &mut Row) {
        *row = acc
    }
    #[inline(always)]
    fn add(mut acc: Row, row: &Row) -> Row {
        scalar::add(&mut acc, row);
        acc
    }
    #[inline(always)]
    fn sub(mut acc: Row, row: &Row) -> Row {
        scalar::sub(&mut acc, row);
        acc
    }
    #[inline(always)]
    fn load_sum(sum: &[i32; CHANNELS]) -> [i32; CHANNELS] {
        *sum
    }
    #[inline(always)]
    fn store_sum(sum: [i32; CHANNELS], out: &mut [i32; CHANNELS]) {
        *out = sum
    }
    #[inline(always)]
    fn feature_delta(mut sum: [i32; CHANNELS], before: Row, after: Row) -> [i32; CHANNELS] {
        scalar::feature_delta(&mut sum, &before, &after);
        sum
    }
}

/// The AVX2 path's `Ops`: only for code that runs where the CPU has AVX2 (`Kernel::Avx2`).
#[cfg(all(target_arch = "x86_64", not(sente_portable)))]
pub struct Avx2Ops;

#[cfg(all(target_arch = "x86_64", not(sente_portable)))]
impl Ops for Avx2Ops {
    type Acc = [std::arch::x86_64::__m256i; 2];
    type Sum = [std::arch::x86_64::__m256i; 4];
    // SAFETY (every method): `Avx2Ops` is used only under `Kernel::Avx2`, chosen where
    // the CPU has AVX2.
    #[inline(always)]
    fn load(row: &Row) -> Self::Acc {
        unsafe { avx2::load_row(row) }
    }
    #[inline(always)]
    fn store(acc: Self::Acc, row: &mut Row) {
        unsafe { avx2::store_row(acc, row) }
    }
    #[inline(always)]
    fn add(acc: Self::Acc, row: &Row) -> Self::Acc {
        unsafe { avx2::add(acc, row) }
    }
    #[inline(always)]
    fn sub(acc: Self::Acc, row: &Row) -> Self::Acc {
        unsafe { avx2::sub(acc, row) }
    }
    #[inline(always)]
    fn load_sum(sum: &[i32; CHANNELS]) -> Self::Sum {
        unsafe { avx2::load_sum(sum) }
    }
    #[inline(always)]
    fn store_sum(sum: Self::Sum, out: &mut [i32; CHANNELS]) {
        unsafe { avx2::store_sum(sum, out) }
    }
    #[inline(always)]
    fn feature_delta(sum: Self::Sum, before: Self::Acc, after: Self::Acc) -> Self::Sum {
        unsafe { avx2::feature_delta(sum, before, after) }
    }
}

/// The arithmetic a `NetEvaluator` uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    Scalar,
    #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
    Avx2,
}

impl Kernel {
    /// The fastest path this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
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

    /// `Σ w[c] · features(acc)[c]`.
    #[inline]
    pub fn dot_features(self, w: &Row, acc: &Row) -> i32 {
        match self {
            Kernel::Scalar => scalar::dot_features(w, acc),
            // SAFETY: `Avx2` is only chosen where the CPU has AVX2 (`detect`).
            #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
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

    pub fn sub(acc: &mut Row, sub: &Row) {
        for c in 0..CHANNELS {
            acc[c] = acc[c].wrapping_sub(sub[c]);
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

#[cfg(all(target_arch = "x86_64", not(sente_portable)))]
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
    pub unsafe fn load_row(r: &Row) -> [__m256i; 2] {
        // SAFETY: rows of 32 i16 (`load`).
        unsafe { [load(r, 0), load(r, 1)] }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn store_row(v: [__m256i; 2], r: &mut Row) {
        // SAFETY: rows of 32 i16 (`load`).
        unsafe {
            store(r, 0, v[0]);
            store(r, 1, v[1]);
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn add(v: [__m256i; 2], r: &Row) -> [__m256i; 2] {
        // SAFETY: rows of 32 i16 (`load`).
        unsafe { [_mm256_add_epi16(v[0], load(r, 0)), _mm256_add_epi16(v[1], load(r, 1))] }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn sub(v: [__m256i; 2], r: &Row) -> [__m256i; 2] {
        // SAFETY: rows of 32 i16 (`load`).
        unsafe { [_mm256_sub_epi16(v[0], load(r, 0)), _mm256_sub_epi16(v[1], load(r, 1))] }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn load_sum(sum: &[i32; CHANNELS]) -> [__m256i; 4] {
        // SAFETY: 32 i32, 8 at each of 0, 8, 16 and 24.
        unsafe { std::array::from_fn(|k| _mm256_loadu_si256(sum.as_ptr().add(8 * k) as *const __m256i)) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn store_sum(v: [__m256i; 4], sum: &mut [i32; CHANNELS]) {
        for (k, v) in v.into_iter().enumerate() {
            // SAFETY: as in `load_sum`.
            unsafe { _mm256_storeu_si256(sum.as_mut_ptr().add(8 * k) as *mut __m256i, v) }
        }
    }

    /// The sum's lanes are channels 0..8, 8..16 (of the first half-row), 16..24, 24..32.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub unsafe fn feature_delta(sum: [__m256i; 4], before: [__m256i; 2], after: [__m256i; 2]) -> [__m256i; 4] {
        // Features are 0..=QA, so their difference fits an i16.
        let d0 = _mm256_sub_epi16(clip(after[0]), clip(before[0]));
        let d1 = _mm256_sub_epi16(clip(after[1]), clip(before[1]));
        [
            _mm256_add_epi32(sum[0], _mm256_cvtepi16_epi32(_mm256_castsi256_si128(d0))),
            _mm256_add_epi32(sum[1], _mm256_cvtepi16_epi32(_mm256_extracti128_si256(d0, 1))),
            _mm256_add_epi32(sum[2], _mm256_cvtepi16_epi32(_mm256_castsi256_si128(d1))),
            _mm256_add_epi32(sum[3], _mm256_cvtepi16_epi32(_mm256_extracti128_si256(d1, 1))),
        ]
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

    /// `acc - sub + add` and a feature delta through `O`, as a catch-up does them.
    fn through<O: Ops>(acc: &Row, sub: &Row, add: &Row, sum: &[i32; CHANNELS]) -> (Row, [i32; CHANNELS]) {
        let before = O::load(acc);
        let after = O::add(O::sub(before, sub), add);
        let mut out = [0; CHANNELS];
        O::store(after, &mut out);
        let mut total = [0; CHANNELS];
        O::store_sum(O::feature_delta(O::load_sum(sum), before, after), &mut total);
        (out, total)
    }

    #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
    #[target_feature(enable = "avx2")]
    fn through_avx2(acc: &Row, sub: &Row, add: &Row, sum: &[i32; CHANNELS]) -> (Row, [i32; CHANNELS]) {
        through::<Avx2Ops>(acc, sub, add, sum)
    }

    #[test]
    fn every_path_equals_the_scalar_reference() {
        let mut rng = 5u64;
        for kernel in Kernel::available() {
            for _ in 0..2000 {
                let (a, b, c) = (random_row(&mut rng), random_row(&mut rng), random_row(&mut rng));
                let start: [i32; CHANNELS] = std::array::from_fn(|_| splitmix64(&mut rng) as i32 >> 4);
                let want = through::<ScalarOps>(&a, &b, &c, &start);
                let got = match kernel {
                    Kernel::Scalar => want,
                    // SAFETY: `available` lists AVX2 only where the CPU has it.
                    #[cfg(all(target_arch = "x86_64", not(sente_portable)))]
                    Kernel::Avx2 => unsafe { through_avx2(&a, &b, &c, &start) },
                };
                assert_eq!(got, want, "{kernel:?}");
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
