/*
 * common/crashpoint.h: simulated power failures for crash-safety tests
 * (DESIGN.md "I/O layers stack").  Shared by the tools that change a
 * filesystem in place.
 */
#ifndef E4_CRASHPOINT_H
#define E4_CRASHPOINT_H

#include "e4.h"

/* When the environment variable E4_CRASH_AFTER_WRITES is a number N > 0,
 * stack a write layer on io that lets N writes reach the device and ends
 * the process at once (status 137, as if killed, nothing flushed, no
 * message) when the next one comes (libe4's crash-point layer,
 * e4_io_crash_layer()); E4_CRASH_TRACE=FILE also appends one line
 * "offset length" per write that reaches the device to FILE (the write
 * hook, below the crash point); E4_SYNC_TRACE=FILE appends a line "sync"
 * per sync of the device (the I/O counts of tests/t/dbgw_io_count.sh).
 * Does nothing otherwise.
 * Later calls (handles opened again by the same process) join the same
 * count and trace.  E4_FAIL_READ=OFFSET:LENGTH (bytes) makes every read
 * of the device that touches that range fail with EIO (a bad spot on a
 * disk), for the tests of what a tool does after a read error; the reads
 * made before this call (the open) are not affected.  Returns 0, or
 * EINVAL for a malformed value (the tool reports it). */
errcode_t crashpoint_install(e4_io *io);

#endif
