//===- MemoryPlan.cpp - an artifact's memory plan, evaluated --------------===//

#include "SeZM/Support/MemoryPlan.h"

#include <cctype>
#include <sstream>

using namespace sezmrt;

namespace {

std::string trim(const std::string &text) {
  size_t begin = text.find_first_not_of(' ');
  size_t end = text.find_last_not_of(' ');
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

/// "4352*E + 4096*N - 4": terms joined by " + " or " - ", each a product of
/// an optional integer and extent names.
bool parsePolynomial(const std::string &text, PlanPolynomial &out) {
  out.clear();
  std::string rest = trim(text);
  int sign = 1;
  while (!rest.empty()) {
    size_t plus = rest.find(" + "), minus = rest.find(" - ");
    size_t cut = std::min(plus, minus);
    std::string term = trim(rest.substr(0, cut));
    if (!term.empty() && term[0] == '-') {
      sign = -sign;
      term = trim(term.substr(1));
    }
    PlanTerm parsed;
    parsed.coefficient = sign;
    std::stringstream factors(term);
    std::string factor;
    bool any = false;
    while (std::getline(factors, factor, '*')) {
      factor = trim(factor);
      if (factor.empty())
        return false;
      any = true;
      if (std::isdigit(static_cast<unsigned char>(factor[0]))) {
        for (char c : factor)
          if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
        parsed.coefficient *= std::stoll(factor);
      } else {
        parsed.extents.push_back(factor);
      }
    }
    if (!any)
      return false;
    out.push_back(parsed);
    if (cut == std::string::npos)
      break;
    sign = cut == minus ? -1 : 1;
    rest = rest.substr(cut + 3);
  }
  return !out.empty();
}

/// Splits "a, b, c" at the commas outside brackets.
std::vector<std::string> splitCandidates(const std::string &text) {
  std::vector<std::string> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '[')
      ++depth;
    else if (text[i] == ')' || text[i] == ']')
      --depth;
    else if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

} // namespace

std::string sezmrt::parseMemoryPlan(const std::string &section,
                                    std::vector<FunctionPlan> &plans) {
  plans.clear();
  std::stringstream lines(section);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (trim(line).empty())
      continue;
    auto bad = [&](const std::string &what) {
      return "memory plan, line " + std::to_string(number) + ": " + what;
    };
    const std::string peakMark = " planned peak ",
                      unplannedMark = " bytes (unplanned ";
    size_t peakAt = line.find(peakMark);
    size_t at = line.rfind('@', peakAt);
    size_t unplannedAt = line.find(unplannedMark, peakAt);
    size_t close = line.find(')', unplannedAt + unplannedMark.size());
    if (peakAt == std::string::npos || at == std::string::npos ||
        unplannedAt == std::string::npos || close == std::string::npos)
      return bad("not a line of sezm-plan-memory's remark");
    FunctionPlan plan;
    plan.function = line.substr(at + 1, peakAt - at - 1);
    std::string peak = trim(line.substr(
        peakAt + peakMark.size(), unplannedAt - peakAt - peakMark.size()));
    if (peak.rfind("max(", 0) == 0 && peak.back() == ')')
      peak = peak.substr(4, peak.size() - 5);
    for (const std::string &candidate : splitCandidates(peak)) {
      plan.peak.emplace_back();
      if (!parsePolynomial(candidate, plan.peak.back()))
        return bad("cannot read the peak term '" + trim(candidate) + "'");
    }
    std::string unplanned =
        line.substr(unplannedAt + unplannedMark.size(),
                    close - unplannedAt - unplannedMark.size());
    if (!parsePolynomial(unplanned, plan.unplanned))
      return bad("cannot read the unplanned peak '" + unplanned + "'");
    plans.push_back(std::move(plan));
  }
  return "";
}

std::optional<int64_t>
sezmrt::evaluatePlan(const PlanPolynomial &polynomial,
                     const std::map<std::string, int64_t> &extents,
                     std::string &missing) {
  int64_t total = 0;
  for (const PlanTerm &term : polynomial) {
    int64_t product = term.coefficient;
    for (const std::string &extent : term.extents) {
      auto found = extents.find(extent);
      if (found == extents.end()) {
        missing = extent;
        return std::nullopt;
      }
      product *= found->second;
    }
    total += product;
  }
  return total;
}

int64_t sezmrt::linearCoefficient(const PlanPolynomial &polynomial,
                                  const std::string &extent) {
  for (const PlanTerm &term : polynomial)
    if (term.extents == std::vector<std::string>{extent})
      return term.coefficient;
  return 0;
}
