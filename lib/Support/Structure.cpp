//===- Structure.cpp - extended XYZ and neighbour graphs ------------------===//

#include "SeZM/Support/Structure.h"

#include "SeZM/Support/CellList.h"
#include "SeZM/Support/HostTensor.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <sstream>

using namespace sezmrt;

namespace {

/// A whitespace-separated token and its 1-based column.
struct Token {
  std::string text;
  size_t column;
};

std::vector<Token> tokenize(const std::string &line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    size_t start = i;
    while (i < line.size() &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i > start)
      tokens.push_back({line.substr(start, i - start), start + 1});
  }
  return tokens;
}

bool parseNumber(const std::string &text, double &value) {
  if (text.empty())
    return false;
  char *end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

bool parseCount(const std::string &text, long long &value) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return false;
  value = std::atoll(text.c_str());
  return text.size() < 18;
}

std::string lower(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// The comment line's key=value pairs (values may be double-quoted), each
/// with the column its value starts at.
struct KeyValue {
  std::string key, value;
  size_t column;
};

bool parseComment(const std::string &line, std::vector<KeyValue> &pairs,
                  size_t &badColumn) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    if (i >= line.size())
      break;
    size_t keyStart = i;
    while (i < line.size() && line[i] != '=' &&
           !std::isspace(static_cast<unsigned char>(line[i])))
      ++i;
    std::string key = line.substr(keyStart, i - keyStart);
    if (i >= line.size() || line[i] != '=') {
      // A bare word (a free-text comment): no value to read.
      continue;
    }
    ++i;
    size_t valueStart = i;
    std::string value;
    if (i < line.size() && line[i] == '"') {
      size_t close = line.find('"', i + 1);
      if (close == std::string::npos) {
        badColumn = i + 1;
        return false;
      }
      value = line.substr(i + 1, close - i - 1);
      valueStart = i + 2;
      i = close + 1;
    } else {
      while (i < line.size() &&
             !std::isspace(static_cast<unsigned char>(line[i])))
        ++i;
      value = line.substr(valueStart, i - valueStart);
      valueStart += 1;
    }
    pairs.push_back({key, value, valueStart});
  }
  return true;
}

/// One column group of Properties=name:type:count:...
struct Property {
  std::string name;
  char type;
  int count;
};

} // namespace

bool sezmrt::parseExtendedXyz(const std::string &text, const std::string &name,
                              Structure &out, std::string &error) {
  out = Structure();
  std::vector<std::string> lines;
  {
    std::istringstream stream(text);
    std::string line;
    while (std::getline(stream, line)) {
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      lines.push_back(line);
    }
  }
  auto fail = [&](size_t line, size_t column, const std::string &what) {
    error = name + ":" + std::to_string(line) + ":" + std::to_string(column) +
            ": " + what;
    return false;
  };
  if (lines.empty())
    return fail(1, 1,
                "the file is empty; an XYZ file starts with the number "
                "of atoms");
  std::vector<Token> countTokens = tokenize(lines[0]);
  long long atoms = 0;
  if (countTokens.size() != 1 || !parseCount(countTokens[0].text, atoms) ||
      atoms <= 0)
    return fail(1, countTokens.empty() ? 1 : countTokens[0].column,
                "expected the number of atoms (a positive integer) alone on "
                "the first line, got '" +
                    lines[0] + "'");
  if (lines.size() < 2)
    return fail(2, 1, "the file ends before the comment line");

  // The comment line.
  std::vector<KeyValue> pairs;
  size_t badColumn = 0;
  if (!parseComment(lines[1], pairs, badColumn))
    return fail(2, badColumn, "a quoted value is not closed");
  std::vector<Property> properties = {{"species", 'S', 1}, {"pos", 'R', 3}};
  std::array<bool, 3> pbc{false, false, false};
  bool pbcGiven = false;
  for (const KeyValue &pair : pairs) {
    std::string key = lower(pair.key);
    if (key == "lattice") {
      std::vector<Token> numbers = tokenize(pair.value);
      if (numbers.size() != 9)
        return fail(2, pair.column,
                    "Lattice needs 9 numbers (a1, a2, a3), got " +
                        std::to_string(numbers.size()));
      for (int k = 0; k < 9; ++k)
        if (!parseNumber(numbers[k].text, out.cell[k / 3][k % 3]))
          return fail(2, pair.column + numbers[k].column - 1,
                      "Lattice entry '" + numbers[k].text +
                          "' is not a number");
      out.hasCell = true;
    } else if (key == "pbc") {
      std::vector<Token> flags = tokenize(pair.value);
      if (flags.size() != 3)
        return fail(2, pair.column,
                    "pbc needs 3 flags (T or F), got " +
                        std::to_string(flags.size()));
      for (int k = 0; k < 3; ++k) {
        std::string flag = lower(flags[k].text);
        if (flag == "t" || flag == "true")
          pbc[k] = true;
        else if (flag == "f" || flag == "false")
          pbc[k] = false;
        else
          return fail(2, pair.column + flags[k].column - 1,
                      "pbc flag '" + flags[k].text + "' is not T or F");
      }
      pbcGiven = true;
    } else if (key == "properties") {
      properties.clear();
      std::vector<std::string> fields;
      std::stringstream stream(pair.value);
      std::string field;
      while (std::getline(stream, field, ':'))
        fields.push_back(field);
      if (fields.size() % 3 != 0 || fields.empty())
        return fail(2, pair.column,
                    "Properties must be name:type:count triples, got '" +
                        pair.value + "'");
      for (size_t k = 0; k < fields.size(); k += 3) {
        long long count = 0;
        std::string type = fields[k + 1];
        if (type.size() != 1 ||
            std::string("SRIL").find(type[0]) == std::string::npos)
          return fail(2, pair.column,
                      "Properties type '" + type + "' of '" + fields[k] +
                          "' is not one of S, R, I, L");
        if (!parseCount(fields[k + 2], count) || count <= 0)
          return fail(2, pair.column,
                      "Properties count '" + fields[k + 2] + "' of '" +
                          fields[k] + "' is not a positive integer");
        properties.push_back({fields[k], type[0], static_cast<int>(count)});
      }
    }
  }
  if (!pbcGiven && out.hasCell)
    pbc = {true, true, true};
  for (int k = 0; k < 3; ++k)
    if (pbc[k] && !out.hasCell)
      return fail(2, 1,
                  "pbc is true along lattice vector " + std::to_string(k + 1) +
                      " but the comment line gives no Lattice");
  out.pbc = pbc;

  // Where species and pos are among the columns.
  int columns = 0, speciesColumn = -1, posColumn = -1;
  for (const Property &property : properties) {
    if (property.name == "species") {
      if (property.type != 'S' || property.count != 1)
        return fail(2, 1,
                    "Properties gives species as " +
                        std::string(1, property.type) + ":" +
                        std::to_string(property.count) + "; it must be S:1");
      speciesColumn = columns;
    } else if (property.name == "pos") {
      if (property.type != 'R' || property.count != 3)
        return fail(2, 1,
                    "Properties gives pos as " + std::string(1, property.type) +
                        ":" + std::to_string(property.count) +
                        "; it must be R:3");
      posColumn = columns;
    }
    columns += property.count;
  }
  if (speciesColumn < 0 || posColumn < 0)
    return fail(2, 1,
                std::string("Properties has no '") +
                    (speciesColumn < 0 ? "species" : "pos") + "' column");

  // The atoms.
  for (long long a = 0; a < atoms; ++a) {
    size_t lineNumber = static_cast<size_t>(a) + 3;
    if (lineNumber > lines.size())
      return fail(lineNumber, 1,
                  "the file ends after " + std::to_string(a) + " of " +
                      std::to_string(atoms) + " atoms");
    const std::string &line = lines[lineNumber - 1];
    std::vector<Token> tokens = tokenize(line);
    if (static_cast<int>(tokens.size()) != columns)
      return fail(lineNumber,
                  static_cast<int>(tokens.size()) > columns
                      ? tokens[columns].column
                      : line.size() + 1,
                  "atom " + std::to_string(a + 1) + " has " +
                      std::to_string(tokens.size()) +
                      " columns; Properties "
                      "gives " +
                      std::to_string(columns));
    out.species.push_back(tokens[speciesColumn].text);
    Vec3 position;
    for (int k = 0; k < 3; ++k) {
      const Token &token = tokens[posColumn + k];
      if (!parseNumber(token.text, position[k]))
        return fail(lineNumber, token.column,
                    "coordinate '" + token.text + "' of atom " +
                        std::to_string(a + 1) + " is not a finite number");
    }
    out.positions.push_back(position);
  }
  return true;
}

std::string sezmrt::describePeriodicity(const Structure &structure) {
  int periodic =
      int(structure.pbc[0]) + int(structure.pbc[1]) + int(structure.pbc[2]);
  if (periodic > 0)
    return "periodic along " + std::to_string(periodic) +
           " of 3 lattice vectors";
  return structure.hasCell ? "non-periodic (pbc is F F F)"
                           : "non-periodic (no Lattice)";
}

std::vector<double> sezmrt::flatten(const std::vector<Vec3> &rows) {
  std::vector<double> flat;
  for (const Vec3 &row : rows)
    flat.insert(flat.end(), row.begin(), row.end());
  return flat;
}

bool sezmrt::readExtendedXyz(const std::string &path, Structure &out,
                             std::string &error) {
  std::string text;
  if (!readFileBytes(path, text, error))
    return false;
  return parseExtendedXyz(text, path, out, error);
}

/// The CSRs: each atom's edges in increasing edge order, by a counting sort
/// by atom (which keeps the edge order within a segment).
static void buildSegments(int64_t atoms, NeighbourGraph &graph) {
  int64_t count = static_cast<int64_t>(graph.src.size());
  auto segment = [&](const std::vector<int64_t> &key,
                     std::vector<int64_t> &order,
                     std::vector<int64_t> &rowptr) {
    rowptr.assign(atoms + 1, 0);
    for (int64_t e = 0; e < count; ++e)
      ++rowptr[key[e] + 1];
    std::partial_sum(rowptr.begin(), rowptr.end(), rowptr.begin());
    std::vector<int64_t> next(rowptr.begin(), rowptr.end() - 1);
    order.resize(count);
    for (int64_t e = 0; e < count; ++e)
      order[next[key[e]]++] = e;
  };
  segment(graph.src, graph.srcOrder, graph.srcRowptr);
  segment(graph.dst, graph.dstOrder, graph.dstRowptr);
}

bool sezmrt::buildNeighbourGraph(const Structure &structure, double cutoff,
                                 NeighbourGraph &out, std::string &error) {
  out = NeighbourGraph();
  if (!(cutoff > 0) || !std::isfinite(cutoff)) {
    error = "the cutoff must be a positive number";
    return false;
  }
  int64_t atoms = static_cast<int64_t>(structure.positions.size());
  bool anyPeriodic = structure.pbc[0] || structure.pbc[1] || structure.pbc[2];
  if (anyPeriodic && !structure.hasCell) {
    error = "a periodic structure needs a cell";
    return false;
  }
  for (size_t a = 0; a < structure.positions.size(); ++a)
    for (double v : structure.positions[a])
      if (!std::isfinite(v)) {
        error = "atom " + std::to_string(a + 1) +
                " has a coordinate that is not a finite number";
        return false;
      }
  for (const Vec3 &vector : structure.cell)
    for (double v : vector)
      if (structure.hasCell && !std::isfinite(v)) {
        error = "the cell has a component that is not a finite number";
        return false;
      }
  // The cell-list search of CellList.h, in double, its per-atom steps in
  // loops (the GPU runs the same steps in float, one thread per atom).
  using namespace sezm_cell_list;
  double cellRows[9];
  int periodic[3];
  for (int k = 0; k < 3; ++k) {
    periodic[k] = structure.pbc[k];
    for (int d = 0; d < 3; ++d)
      cellRows[3 * k + d] = structure.cell[k][d];
  }
  Frame<double> frame;
  double spacing[3];
  error = makeFrame(structure.hasCell ? cellRows : nullptr, periodic, cutoff,
                    kMinAtomSeparation, frame, spacing);
  if (!error.empty())
    return false;
  std::vector<double> coord = flatten(structure.positions);
  std::vector<double> frac(3 * atoms), wrapped(3 * atoms);
  std::vector<int32_t> cellOf(3 * atoms);
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (int64_t a = 0; a < atoms; ++a) {
    if (!wrappable(frame, coord.data(), a)) {
      error = "atom " + std::to_string(a + 1) +
              " lies over 10^9 cells outside the cell";
      return false;
    }
    wrapAtom(frame, coord.data(), a, frac.data(), cellOf.data(),
             wrapped.data());
    for (int k = 0; k < 3; ++k) {
      lo[k] = a ? std::min(lo[k], frac[3 * a + k]) : frac[3 * a + k];
      hi[k] = a ? std::max(hi[k], frac[3 * a + k]) : frac[3 * a + k];
    }
  }
  error = binFrame(spacing, lo, hi, cutoff, frame);
  if (!error.empty())
    return false;
  std::vector<int64_t> binStart, binAtoms;
  binAtomsOnHost(frame, frac.data(), atoms, binStart, binAtoms);

  // Each destination's edges as (source, image) keys, sorted. The closest
  // pair is refused below kMinAtomSeparation.
  std::vector<int64_t> keys, rowptr(atoms + 1, 0);
  double closest2 = kMinAtomSeparation * kMinAtomSeparation;
  int64_t closestDst = -1, closestKey = 0;
  for (int64_t i = 0; i < atoms; ++i) {
    size_t begin = keys.size();
    forEachNeighbour(frame, i, frac.data(), wrapped.data(), binStart.data(),
                     binAtoms.data(), [&](int64_t key, double r2) {
                       keys.push_back(key);
                       if (r2 < closest2) {
                         closest2 = r2;
                         closestDst = i;
                         closestKey = key;
                       }
                     });
    std::sort(keys.begin() + begin, keys.end());
    rowptr[i + 1] = keys.size();
  }
  if (closestDst >= 0) {
    auto atom = [&](int64_t a) {
      return "atom " + std::to_string(a + 1) +
             (a < static_cast<int64_t>(structure.species.size())
                  ? " (" + structure.species[a] + ")"
                  : std::string());
    };
    int64_t src = closestKey / kImageCodes;
    double shift[3], vector[3];
    edgeFromKey(frame, closestKey, closestDst, coord.data(), cellOf.data(),
                shift, vector);
    bool imaged =
        src == closestDst || shift[0] != 0 || shift[1] != 0 || shift[2] != 0;
    char distance[32], limit[32];
    std::snprintf(distance, sizeof distance, "%.3g", std::sqrt(closest2));
    std::snprintf(limit, sizeof limit, "%g", kMinAtomSeparation);
    error = atom(std::min(src, closestDst)) + " and " +
            (src == closestDst ? "its own periodic image"
                               : atom(std::max(src, closestDst)) +
                                     (imaged ? "'s periodic image" : "")) +
            " are " + distance + " A apart: atoms closer than " + limit +
            " A are taken for an error in the structure (they would give "
            "unbounded forces)";
    return false;
  }

  int64_t count = static_cast<int64_t>(keys.size());
  out.src.resize(count);
  out.dst.resize(count);
  out.shift.resize(count);
  for (int64_t i = 0; i < atoms; ++i)
    for (int64_t e = rowptr[i]; e < rowptr[i + 1]; ++e) {
      double vector[3];
      out.src[e] = edgeFromKey(frame, keys[e], i, coord.data(), cellOf.data(),
                               out.shift[e].data(), vector);
      out.dst[e] = i;
    }
  buildSegments(atoms, out);
  return true;
}

bool sezmrt::graphFromEdges(int64_t atoms, int64_t edges, const double *coord,
                            const int64_t *edgeIndex, const double *edgeVec,
                            NeighbourGraph &out, std::string &error) {
  out = NeighbourGraph();
  out.src.assign(edgeIndex, edgeIndex + edges);
  out.dst.assign(edgeIndex + edges, edgeIndex + 2 * edges);
  out.shift.resize(edges);
  for (int64_t e = 0; e < edges; ++e) {
    int64_t src = out.src[e], dst = out.dst[e];
    std::string edge = "edge " + std::to_string(e);
    if (src < 0 || src >= atoms || dst < 0 || dst >= atoms) {
      error = edge + " joins atoms " + std::to_string(src) + " and " +
              std::to_string(dst) + ", outside [0, " + std::to_string(atoms) +
              ")";
      return false;
    }
    const double *v = edgeVec + 3 * e;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) {
      error = edge + " has a vector that is not a finite number";
      return false;
    }
    double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length < kMinAtomSeparation) {
      char distance[32], limit[32];
      std::snprintf(distance, sizeof distance, "%.3g", length);
      std::snprintf(limit, sizeof limit, "%g", kMinAtomSeparation);
      error = edge + ": atom " + std::to_string(src) + " is " + distance +
              " A from atom " + std::to_string(dst) + ": atoms closer than " +
              limit +
              " A are taken for an error in the structure (they would give "
              "unbounded forces)";
      return false;
    }
    for (int k = 0; k < 3; ++k)
      out.shift[e][k] = v[k] - (coord[3 * src + k] - coord[3 * dst + k]);
  }
  buildSegments(atoms, out);
  return true;
}
