//! Zeroed memory for the transposition table, on 2 MiB pages where Linux gives them.
//!
//! The table is probed at random, so with 4 KiB pages nearly every probe is a TLB miss
//! (a 16 MiB table spans 4,096 pages, more than the second-level TLB holds) and the
//! first touch of every page is a page fault. On 2 MiB pages (transparent huge pages,
//! asked for with `madvise`, the kernel's usual "madvise" mode) the same table is eight
//! pages. The memory comes straight from `mmap`, so it is zero and mapped lazily: a page
//! costs nothing until the search first touches it. Elsewhere (or if `mmap` fails) it
//! is the global allocator's zeroed memory, lazily mapped as well.

use std::alloc::Layout;
use std::ptr::NonNull;

/// `len` values of `T`, all bytes zero at the start, freed on drop. For plain data only:
/// the values are never dropped one by one (`new` refuses a `T` with drop glue).
pub(crate) struct ZeroedBuffer<T> {
    ptr: NonNull<T>,
    len: usize,
    source: Source,
}

enum Source {
    /// Nothing allocated (no elements).
    Empty,
    /// From the global allocator with this layout.
    Heap(Layout),
    /// From `mmap`: the whole mapping, to unmap on drop.
    #[cfg(target_os = "linux")]
    Mapped { base: *mut u8, bytes: usize },
}

// SAFETY: the buffer owns its memory alone (like a `Vec<T>`), so it may move to or be
// shared with another thread whenever `T` may.
unsafe impl<T: Send> Send for ZeroedBuffer<T> {}
unsafe impl<T: Sync> Sync for ZeroedBuffer<T> {}

/// The huge page size of x86_64 and aarch64 Linux (with 4 KiB base pages).
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

impl<T> ZeroedBuffer<T> {
    /// `len` zeroed values.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn new(len: usize) -> ZeroedBuffer<T> {
        const { assert!(!std::mem::needs_drop::<T>(), "ZeroedBuffer never drops its values") };
        let layout = Layout::array::<T>(len).expect("table size fits in memory");
        if layout.size() == 0 {
            return ZeroedBuffer {
                ptr: NonNull::dangling(),
                len,
                source: Source::Empty,
            };
        }
        #[cfg(target_os = "linux")]
        if layout.size() >= HUGE_PAGE && layout.align() <= HUGE_PAGE {
            if let Some((ptr, base, bytes)) = linux::map_huge(layout.size()) {
                return ZeroedBuffer {
                    ptr: ptr.cast(),
                    len,
                    source: Source::Mapped { base, bytes },
                };
            }
        }
        // SAFETY: `layout` has a non-zero size; a null result is handled.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout);
        };
        ZeroedBuffer {
            ptr: ptr.cast(),
            len,
            source: Source::Heap(layout),
        }
    }

    /// Set every byte to zero again, in place: resident pages stay resident, so the
    /// next search does not pay a page fault (and the kernel's zeroing) per page again.
    pub(crate) fn zero(&mut self) {
        // SAFETY: `ptr` points to `len` values this buffer owns (or is dangling with a
        // zero length); all-zero bytes are a valid `T` by the contract of `new`.
        unsafe { std::ptr::write_bytes(self.ptr.as_ptr(), 0, self.len) };
    }

    /// Whether the memory came from `mmap` with the huge page hint (for tests).
    #[cfg(all(test, target_os = "linux"))]
    fn is_mapped(&self) -> bool {
        !matches!(self.source, Source::Empty | Source::Heap(_))
    }
}

impl<T> std::ops::Deref for ZeroedBuffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points to `len` initialised values (zero bytes, valid by the
        // contract of `new`) that this buffer owns, or is dangling with a zero size.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedBuffer<T> {
    fn drop(&mut self) {
        match self.source {
            Source::Empty => {}
            // SAFETY: allocated by `alloc_zeroed` with this layout, freed once.
            Source::Heap(layout) => unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), layout) },
            #[cfg(target_os = "linux")]
            Source::Mapped { base, bytes } => linux::unmap(base, bytes),
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use super::HUGE_PAGE;
    use std::ffi::c_void;
    use std::ptr::NonNull;

    extern "C" {
        fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, offset: i64) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> i32;
        fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
    }
    const PROT_READ_WRITE: i32 = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
    const MAP_FAILED: *mut c_void = !0usize as *mut c_void;
    const MADV_HUGEPAGE: i32 = 14;

    /// `size` zero bytes starting on a 2 MiB boundary, hinted to huge pages: (start,
    /// mapping base, mapping length). `None` if the kernel refuses the mapping.
    pub(super) fn map_huge(size: usize) -> Option<(NonNull<u8>, *mut u8, usize)> {
        // Map a huge page more than asked, so that an aligned start fits inside.
        let bytes = size.checked_add(HUGE_PAGE)?;
        // SAFETY: a new private anonymous mapping; it aliases nothing.
        let base = unsafe {
            mmap(
                std::ptr::null_mut(),
                bytes,
                PROT_READ_WRITE,
                MAP_PRIVATE_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == MAP_FAILED || base.is_null() {
            return None;
        }
        let base = base.cast::<u8>();
        let Some(start) = NonNull::new(base.wrapping_add(base.align_offset(HUGE_PAGE))) else {
            unmap(base, bytes);
            return None;
        };
        // SAFETY: [start, start + size) lies inside the mapping (at most HUGE_PAGE - 1
        // bytes of alignment). The hint changes how the kernel backs the pages, never
        // their contents; where it is refused, 4 KiB pages serve as before.
        unsafe { madvise(start.as_ptr().cast(), size, MADV_HUGEPAGE) };
        Some((start, base, bytes))
    }

    pub(super) fn unmap(base: *mut u8, bytes: usize) {
        // SAFETY: the whole mapping made by `map_huge`, unmapped once, by its owner.
        unsafe { munmap(base.cast(), bytes) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_starts_zeroed_and_keeps_what_is_stored() {
        for len in [0, 1, 1000, 3 << 20] {
            // SAFETY: zero is a valid u64.
            let buffer = unsafe { ZeroedBuffer::<std::sync::atomic::AtomicU64>::new(len) };
            assert_eq!(buffer.len(), len);
            assert!(buffer.iter().all(|v| v.load(std::sync::atomic::Ordering::Relaxed) == 0));
            for (i, v) in buffer.iter().enumerate().step_by(4099) {
                v.store(i as u64 + 1, std::sync::atomic::Ordering::Relaxed);
            }
            for (i, v) in buffer.iter().enumerate().step_by(4099) {
                assert_eq!(v.load(std::sync::atomic::Ordering::Relaxed), i as u64 + 1);
            }
        }
    }

    #[test]
    fn zeroing_clears_what_was_stored() {
        for len in [0, 1000, 3 << 20] {
            // SAFETY: zero is a valid u64.
            let mut buffer = unsafe { ZeroedBuffer::<std::sync::atomic::AtomicU64>::new(len) };
            for v in buffer.iter().step_by(777) {
                v.store(7, std::sync::atomic::Ordering::Relaxed);
            }
            buffer.zero();
            assert_eq!(buffer.len(), len);
            assert!(buffer.iter().all(|v| v.load(std::sync::atomic::Ordering::Relaxed) == 0));
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_large_buffer_is_mapped_on_a_huge_page_boundary() {
        // SAFETY: zero is a valid u64.
        let buffer = unsafe { ZeroedBuffer::<u64>::new(HUGE_PAGE / 8 * 3) };
        assert!(buffer.is_mapped());
        assert_eq!(buffer.as_ptr() as usize % HUGE_PAGE, 0);
        // SAFETY: as above.
        let small = unsafe { ZeroedBuffer::<u64>::new(1000) };
        assert!(!small.is_mapped());
    }
}
