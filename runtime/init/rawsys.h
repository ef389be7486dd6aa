/* One raw Linux syscall with up to six arguments, for the code that runs
 * without libc: tinyrun-init (init.c) and the binary's entry point
 * (runtime/entry/early_seal.c). Returns the kernel's value: -errno on
 * failure. x86_64 and aarch64. */
#ifndef TINYRUN_RAWSYS_H
#define TINYRUN_RAWSYS_H

typedef long sl;

#if defined(__x86_64__)
static inline sl sys6(sl n, sl a, sl b, sl c, sl d, sl e, sl f)
{
	sl ret;
	register sl r10 __asm__("r10") = d;
	register sl r8 __asm__("r8") = e;
	register sl r9 __asm__("r9") = f;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline sl sys6(sl n, sl a, sl b, sl c, sl d, sl e, sl f)
{
	register sl x8 __asm__("x8") = n;
	register sl x0 __asm__("x0") = a;
	register sl x1 __asm__("x1") = b;
	register sl x2 __asm__("x2") = c;
	register sl x3 __asm__("x3") = d;
	register sl x4 __asm__("x4") = e;
	register sl x5 __asm__("x5") = f;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}
#else
#error "rawsys.h: x86_64 and aarch64 only"
#endif

#define sys3(n, a, b, c) sys6(n, (sl)(a), (sl)(b), (sl)(c), 0, 0, 0)
#define sys5(n, a, b, c, d, e) sys6(n, (sl)(a), (sl)(b), (sl)(c), (sl)(d), (sl)(e), 0)

#endif
