//===- TestPasses.h - Kiln's test-only passes -------------------*- C++ -*-===//
//
// The --test-* passes of kiln-opt, kept out of libkiln.so (test/lib).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TEST_LIB_TESTPASSES_H
#define KILN_TEST_LIB_TESTPASSES_H

namespace kiln {

/// `test-print-axis-info`: every integer and pointer value's claims as
/// remarks (for lit and the soundness test).
void registerTestAxisInfoPass();
/// `test-print-address-form`: every pointer value's address form as
/// remarks (for the address-form soundness test).
void registerTestAddressFormPass();
/// `test-print-int-ranges`: every integer value's signed range as remarks
/// (for lit and the range soundness test).
void registerTestIntRangesPass();
/// `test-print-linear-layout`: C++'s linear form of every tensor layout and
/// the classification of layout moves (for the Python/C++ differential
/// test).
void registerTestLinearLayoutPass();
/// `test-wait-count-oracle`: every async_wait count against all executions
/// of its function (the wait-count pass's independent check).
void registerTestWaitCountOraclePass();
/// `test-async-race-oracle`: races of async shared memory over all
/// executions (tile-check-async-safety's independent check).
void registerTestAsyncRaceOraclePass();
/// `test-barrier-oracle`: the kernel's warps interleaved over every
/// execution, races with barrier-completed writes and hangs
/// (tile-insert-barriers' independent check for them).
void registerTestBarrierOraclePass();
/// `test-print-async-state`: what AsyncState holds in flight before each
/// async or shared-memory op, as remarks (for lit).
void registerTestAsyncStatePass();
/// test-print-loop-hazards (Analysis/TestLoopDependence.cpp).
void registerTestLoopDependencePass();
/// `test-print-min-trips`: the trips the branch conditions before each
/// scf.for imply (for the min-trips soundness test).
void registerTestMinTripsPass();

/// All of the above.
void registerTestPasses();

} // namespace kiln

#endif
