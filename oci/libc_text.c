/* glibc's texts for strerror(3) (so %m) and strsignal(3) in the musl build (LIBC=musl), whose
 * own texts differ for several (ELOOP "Symbolic link loop", EBUSY "Resource busy", SIGCHLD
 * "Child process status"...) where tests and clients (podman, containerd) match the runtime's
 * error text. The link wraps both (-Wl,--wrap=strerror,--wrap=strsignal: musl's printf %m,
 * perror and the static libraries too). Tables of glibc 2.36 (Debian 12), made by a glibc
 * program printing strerror(0..133) and strsignal(1..31). Nothing under glibc. */
#include <features.h>
#ifndef __GLIBC__

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

char *__wrap_strerror(int e);
char *__wrap_strsignal(int sig);

static const char *const glibc_errno_text[] = {
	[0] = "Success",
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[ESRCH] = "No such process",
	[EINTR] = "Interrupted system call",
	[EIO] = "Input/output error",
	[ENXIO] = "No such device or address",
	[E2BIG] = "Argument list too long",
	[ENOEXEC] = "Exec format error",
	[EBADF] = "Bad file descriptor",
	[ECHILD] = "No child processes",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EFAULT] = "Bad address",
	[ENOTBLK] = "Block device required",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[EXDEV] = "Invalid cross-device link",
	[ENODEV] = "No such device",
	[ENOTDIR] = "Not a directory",
	[EISDIR] = "Is a directory",
	[EINVAL] = "Invalid argument",
	[ENFILE] = "Too many open files in system",
	[EMFILE] = "Too many open files",
	[ENOTTY] = "Inappropriate ioctl for device",
	[ETXTBSY] = "Text file busy",
	[EFBIG] = "File too large",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EROFS] = "Read-only file system",
	[EMLINK] = "Too many links",
	[EPIPE] = "Broken pipe",
	[EDOM] = "Numerical argument out of domain",
	[ERANGE] = "Numerical result out of range",
	[EDEADLK] = "Resource deadlock avoided",
	[ENAMETOOLONG] = "File name too long",
	[ENOLCK] = "No locks available",
	[ENOSYS] = "Function not implemented",
	[ENOTEMPTY] = "Directory not empty",
	[ELOOP] = "Too many levels of symbolic links",
	[41] = "Unknown error 41",
	[ENOMSG] = "No message of desired type",
	[EIDRM] = "Identifier removed",
	[ECHRNG] = "Channel number out of range",
	[EL2NSYNC] = "Level 2 not synchronized",
	[EL3HLT] = "Level 3 halted",
	[EL3RST] = "Level 3 reset",
	[ELNRNG] = "Link number out of range",
	[EUNATCH] = "Protocol driver not attached",
	[ENOCSI] = "No CSI structure available",
	[EL2HLT] = "Level 2 halted",
	[EBADE] = "Invalid exchange",
	[EBADR] = "Invalid request descriptor",
	[EXFULL] = "Exchange full",
	[ENOANO] = "No anode",
	[EBADRQC] = "Invalid request code",
	[EBADSLT] = "Invalid slot",
	[58] = "Unknown error 58",
	[EBFONT] = "Bad font file format",
	[ENOSTR] = "Device not a stream",
	[ENODATA] = "No data available",
	[ETIME] = "Timer expired",
	[ENOSR] = "Out of streams resources",
	[ENONET] = "Machine is not on the network",
	[ENOPKG] = "Package not installed",
	[EREMOTE] = "Object is remote",
	[ENOLINK] = "Link has been severed",
	[EADV] = "Advertise error",
	[ESRMNT] = "Srmount error",
	[ECOMM] = "Communication error on send",
	[EPROTO] = "Protocol error",
	[EMULTIHOP] = "Multihop attempted",
	[EDOTDOT] = "RFS specific error",
	[EBADMSG] = "Bad message",
	[EOVERFLOW] = "Value too large for defined data type",
	[ENOTUNIQ] = "Name not unique on network",
	[EBADFD] = "File descriptor in bad state",
	[EREMCHG] = "Remote address changed",
	[ELIBACC] = "Can not access a needed shared library",
	[ELIBBAD] = "Accessing a corrupted shared library",
	[ELIBSCN] = ".lib section in a.out corrupted",
	[ELIBMAX] = "Attempting to link in too many shared libraries",
	[ELIBEXEC] = "Cannot exec a shared library directly",
	[EILSEQ] = "Invalid or incomplete multibyte or wide character",
	[ERESTART] = "Interrupted system call should be restarted",
	[ESTRPIPE] = "Streams pipe error",
	[EUSERS] = "Too many users",
	[ENOTSOCK] = "Socket operation on non-socket",
	[EDESTADDRREQ] = "Destination address required",
	[EMSGSIZE] = "Message too long",
	[EPROTOTYPE] = "Protocol wrong type for socket",
	[ENOPROTOOPT] = "Protocol not available",
	[EPROTONOSUPPORT] = "Protocol not supported",
	[ESOCKTNOSUPPORT] = "Socket type not supported",
	[EOPNOTSUPP] = "Operation not supported",
	[EPFNOSUPPORT] = "Protocol family not supported",
	[EAFNOSUPPORT] = "Address family not supported by protocol",
	[EADDRINUSE] = "Address already in use",
	[EADDRNOTAVAIL] = "Cannot assign requested address",
	[ENETDOWN] = "Network is down",
	[ENETUNREACH] = "Network is unreachable",
	[ENETRESET] = "Network dropped connection on reset",
	[ECONNABORTED] = "Software caused connection abort",
	[ECONNRESET] = "Connection reset by peer",
	[ENOBUFS] = "No buffer space available",
	[EISCONN] = "Transport endpoint is already connected",
	[ENOTCONN] = "Transport endpoint is not connected",
	[ESHUTDOWN] = "Cannot send after transport endpoint shutdown",
	[ETOOMANYREFS] = "Too many references: cannot splice",
	[ETIMEDOUT] = "Connection timed out",
	[ECONNREFUSED] = "Connection refused",
	[EHOSTDOWN] = "Host is down",
	[EHOSTUNREACH] = "No route to host",
	[EALREADY] = "Operation already in progress",
	[EINPROGRESS] = "Operation now in progress",
	[ESTALE] = "Stale file handle",
	[EUCLEAN] = "Structure needs cleaning",
	[ENOTNAM] = "Not a XENIX named type file",
	[ENAVAIL] = "No XENIX semaphores available",
	[EISNAM] = "Is a named type file",
	[EREMOTEIO] = "Remote I/O error",
	[EDQUOT] = "Disk quota exceeded",
	[ENOMEDIUM] = "No medium found",
	[EMEDIUMTYPE] = "Wrong medium type",
	[ECANCELED] = "Operation canceled",
	[ENOKEY] = "Required key not available",
	[EKEYEXPIRED] = "Key has expired",
	[EKEYREVOKED] = "Key has been revoked",
	[EKEYREJECTED] = "Key was rejected by service",
	[EOWNERDEAD] = "Owner died",
	[ENOTRECOVERABLE] = "State not recoverable",
	[ERFKILL] = "Operation not possible due to RF-kill",
	[EHWPOISON] = "Memory page has hardware error",
};

static const char *const glibc_signal_text[] = {
	[SIGHUP] = "Hangup",
	[SIGINT] = "Interrupt",
	[SIGQUIT] = "Quit",
	[SIGILL] = "Illegal instruction",
	[SIGTRAP] = "Trace/breakpoint trap",
	[SIGABRT] = "Aborted",
	[SIGBUS] = "Bus error",
	[SIGFPE] = "Floating point exception",
	[SIGKILL] = "Killed",
	[SIGUSR1] = "User defined signal 1",
	[SIGSEGV] = "Segmentation fault",
	[SIGUSR2] = "User defined signal 2",
	[SIGPIPE] = "Broken pipe",
	[SIGALRM] = "Alarm clock",
	[SIGTERM] = "Terminated",
	[SIGSTKFLT] = "Stack fault",
	[SIGCHLD] = "Child exited",
	[SIGCONT] = "Continued",
	[SIGSTOP] = "Stopped (signal)",
	[SIGTSTP] = "Stopped",
	[SIGTTIN] = "Stopped (tty input)",
	[SIGTTOU] = "Stopped (tty output)",
	[SIGURG] = "Urgent I/O condition",
	[SIGXCPU] = "CPU time limit exceeded",
	[SIGXFSZ] = "File size limit exceeded",
	[SIGVTALRM] = "Virtual timer expired",
	[SIGPROF] = "Profiling timer expired",
	[SIGWINCH] = "Window changed",
	[SIGPOLL] = "I/O possible",
	[SIGPWR] = "Power failure",
	[SIGSYS] = "Bad system call",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* glibc's, for a number outside the table: "Unknown error N" */
char *__wrap_strerror(int e)
{
	static _Thread_local char unknown[32];

	if (e >= 0 && (size_t)e < N(glibc_errno_text) && glibc_errno_text[e])
		return (char *)glibc_errno_text[e];
	snprintf(unknown, sizeof(unknown), "Unknown error %d", e);
	return unknown;
}

/* glibc's real-time signals are numbered from its SIGRTMIN, 34 (musl's is 35) */
char *__wrap_strsignal(int sig)
{
	static _Thread_local char other[32];

	if (sig > 0 && (size_t)sig < N(glibc_signal_text) && glibc_signal_text[sig])
		return (char *)glibc_signal_text[sig];
	if (sig >= 34 && sig <= 64)
		snprintf(other, sizeof(other), "Real-time signal %d", sig - 34);
	else
		snprintf(other, sizeof(other), "Unknown signal %d", sig);
	return other;
}

#else
typedef int tinyrun_libc_text_glibc; /* ISO C wants something in a translation unit */
#endif
