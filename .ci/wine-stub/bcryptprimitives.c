/* Wine 8.0 lacks bcryptprimitives.dll, whose ProcessPrng Rust's std (1.78+)
 * imports: a Windows exe linked with mingw fails at load (c0000135) without
 * it. .ci/wine builds this one-function stand-in beside the exes it runs. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    return RtlGenRandom(data, (ULONG)len);
}
