//! Prefetch hints (issue 21): ask the processor for a cache line some events
//! before it is read (the next packet on a wire, the channel the next packet will
//! take). A hint only: it reads nothing into the program, so no result depends
//! on it, and it cannot fault whatever the address.

/// Ask for the cache line that holds `addr` (any address).
#[inline(always)]
pub fn line<T>(addr: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint; it reads nothing into the program
        // and cannot fault, whatever the address (Intel SDM, PREFETCHh).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(addr as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// Ask for the `size_of::<T>()` bytes from `value` on, one line every 64 bytes (a
/// constant count, so the loop unrolls; a value not aligned to a line may leave
/// its last few bytes out). `value` need not point to a valid `T`.
#[inline(always)]
pub fn value<T>(value: *const T) {
    let first = value as *const u8;
    let mut at = 0;
    while at < std::mem::size_of::<T>() {
        line(first.wrapping_add(at));
        at += 64;
    }
}
