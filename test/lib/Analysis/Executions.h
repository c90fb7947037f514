//===- Executions.h - Every control-flow choice of a function, in turn -----===//
//
// The brute-force oracles (test-wait-count-oracle, test-async-race-oracle)
// interpret a function once per sequence of control-flow choices: at each
// `scf.if`, loop with an unknown trip count or partition order the
// interpreter asks `choose(n)`, and forEachExecution runs it again with the
// next sequence (a mixed-radix counter over the choices made) until every
// sequence was run or `limit` executions were.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_ANALYSIS_EXECUTIONS_H
#define KILN_LIB_ANALYSIS_EXECUTIONS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {

/// One execution's choices: replays `plan`, then takes option 0.
struct Execution {
  llvm::SmallVector<unsigned> choices; // made so far
  llvm::SmallVector<unsigned> limits;  // number of options at each choice
  unsigned next = 0;
  const llvm::SmallVector<unsigned> *plan = nullptr;

  unsigned choose(unsigned options) {
    unsigned c = next < plan->size() ? (*plan)[next] : 0;
    ++next;
    choices.push_back(c);
    limits.push_back(options);
    return c;
  }
};

/// Runs `run` on every choice sequence (at most `limit`); returns how many.
inline unsigned forEachExecution(llvm::function_ref<void(Execution &)> run,
                                 unsigned limit = 20000) {
  llvm::SmallVector<unsigned> plan;
  unsigned executions = 0;
  while (executions < limit) {
    Execution ex;
    ex.plan = &plan;
    run(ex);
    ++executions;
    // Next sequence: bump the last choice that has options left.
    int i = int(ex.choices.size()) - 1;
    while (i >= 0 && ex.choices[i] + 1 >= ex.limits[i])
      --i;
    if (i < 0)
      break;
    plan.assign(ex.choices.begin(), ex.choices.begin() + i);
    plan.push_back(ex.choices[i] + 1);
  }
  return executions;
}

} // namespace kiln

#endif
