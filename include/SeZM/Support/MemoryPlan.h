//===- MemoryPlan.h - an artifact's memory plan, evaluated -------*- C++
//-*-===//
//
// sezm-plan-memory states each function's peak as polynomials in the
// extents of its arguments (N atoms, E edges, ...); sezm-compile keeps those
// lines in the artifact's memory-plan section. This reads them back and
// evaluates them at a size, for `sezm-run --plan`. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_MEMORYPLAN_H
#define SEZM_SUPPORT_MEMORYPLAN_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sezmrt {

constexpr char kMemoryPlanSection[] = "memory-plan";

/// coefficient * product of the named extents.
struct PlanTerm {
  int64_t coefficient = 0;
  std::vector<std::string> extents;
};
using PlanPolynomial = std::vector<PlanTerm>;

/// One function's plan: the planned peak is the largest of `peak`'s
/// candidates; `unplanned` holds every buffer to the exit.
struct FunctionPlan {
  std::string function;
  std::vector<PlanPolynomial> peak;
  PlanPolynomial unplanned;
};

/// The plans of a memory-plan section, one line per function ("...: @f
/// planned peak max(a, b) bytes (unplanned c); ..."). Returns an empty
/// string, or what is wrong and on which line.
std::string parseMemoryPlan(const std::string &section,
                            std::vector<FunctionPlan> &plans);

/// The value of `polynomial` at `extents`; nullopt, with the extent in
/// `missing`, when one has no value.
std::optional<int64_t>
evaluatePlan(const PlanPolynomial &polynomial,
             const std::map<std::string, int64_t> &extents,
             std::string &missing);

/// The coefficient of the term that is `extent` alone (bytes per edge for
/// "E"), 0 when there is none.
int64_t linearCoefficient(const PlanPolynomial &polynomial,
                          const std::string &extent);

} // namespace sezmrt

#endif // SEZM_SUPPORT_MEMORYPLAN_H
