//===- TestPasses.cpp - Register Kiln's test-only passes ------------------===//

#include "TestPasses.h"

void kiln::registerTestPasses() {
  registerTestAxisInfoPass();
  registerTestAddressFormPass();
  registerTestLoopDependencePass();
  registerTestIntRangesPass();
  registerTestMinTripsPass();
  registerTestLinearLayoutPass();
  registerTestWaitCountOraclePass();
  registerTestAsyncRaceOraclePass();
  registerTestBarrierOraclePass();
  registerTestAsyncStatePass();
}
