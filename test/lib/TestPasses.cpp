//===- TestPasses.cpp - Register Kiln's test-only passes ------------------===//

#include "TestPasses.h"

void kiln::registerTestPasses() {
  registerTestAxisInfoPass();
  registerTestIntRangesPass();
  registerTestLinearLayoutPass();
  registerTestWaitCountOraclePass();
  registerTestAsyncRaceOraclePass();
}
