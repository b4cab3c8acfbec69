//===- Signature.cpp - what an entry function takes and returns -----------===//

#include "SeZM/Support/Signature.h"

#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

using namespace sezmrt;

std::string TensorPort::describe() const {
  std::ostringstream os;
  os << "'" << name << "' (" << sezmrt::elementTypeName(type) << " (";
  for (size_t i = 0; i < shape.size(); ++i) {
    os << (i ? ", " : "");
    if (shape[i] < 0)
      os << "?";
    else
      os << shape[i];
  }
  os << (shape.size() == 1 ? ",))" : "))");
  return os.str();
}

bool TensorPort::accepts(const HostTensor &tensor) const {
  if (tensor.type != type || tensor.shape.size() != shape.size())
    return false;
  for (size_t axis = 0; axis < shape.size(); ++axis)
    if (shape[axis] >= 0 && shape[axis] != tensor.shape[axis])
      return false;
  return true;
}

std::string EntrySignature::checkInputs(const std::vector<HostTensor> &inputs,
                                        bool readIndices) const {
  if (inputs.size() != arguments.size())
    return std::string("@" + function + " takes " +
                       std::to_string(arguments.size()) + " inputs, but " +
                       std::to_string(inputs.size()) + " were given");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!arguments[i].accepts(inputs[i]))
      return std::string("input " + arguments[i].describe() + " was given " +
                         inputs[i].describe());
  // Values are checked where they are at hand (a view without bytes stands
  // for an array the caller keeps).
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor &input = inputs[i];
    if (input.bytes.size() !=
        static_cast<size_t>(input.numElements()) * elementSize(input.type))
      continue;
    std::string error =
        nonFiniteError("input '" + arguments[i].name + "'", input.type,
                       input.bytes.data(), input.numElements());
    if (!error.empty())
      return error;
  }

  for (const OpContract &contract : contracts) {
    std::map<std::string, int64_t> sizes;
    for (const auto &[symbol, extents] : contract.extents) {
      std::optional<std::pair<int64_t, const GraphExtent *>> first;
      for (const GraphExtent &extent : extents) {
        int64_t value =
            inputs[extent.argument].shape[extent.axis] - extent.offset;
        if (!first) {
          first = {value, &extent};
          continue;
        }
        if (value != first->first) {
          auto name = [&](const GraphExtent &e) {
            return "'" + arguments[e.argument].name + "' (dimension " +
                   std::to_string(e.axis) + " is " +
                   std::to_string(inputs[e.argument].shape[e.axis]) + ")";
          };
          return std::string(
              "inputs disagree on the graph size " + symbol + " of " +
              contract.op + ": " + name(*first->second) + " gives " + symbol +
              " = " + std::to_string(first->first) + ", " + name(extent) +
              " gives " + symbol + " = " + std::to_string(value));
        }
      }
      if (!first)
        continue;
      if (first->first > kMaxGraphSize)
        return std::string(
            "the graph size " + symbol + " of " + contract.op + " is " +
            std::to_string(first->first) + " (from '" +
            arguments[first->second->argument].name + "'), more than the " +
            std::to_string(kMaxGraphSize) + " that sezm's kernels index");
      sizes[symbol] = first->first;
    }
    for (const OpContract::IndexInput &index : contract.indices) {
      if (!readIndices)
        break;
      const HostTensor &tensor = inputs[index.argument];
      std::string where = "input '" + arguments[index.argument].name +
                          "' (operand '" + index.operand + "' of " +
                          contract.op + ")";
      int64_t count = tensor.numElements();
      if (index.role == "node") {
        auto nodes = sizes.find("N");
        if (nodes == sizes.end())
          continue;
        for (int64_t i = 0; i < count; ++i) {
          int64_t v = tensor.indexAt(i);
          if (v < 0 || v >= nodes->second)
            return std::string(where + ": entry " + std::to_string(i) + " is " +
                               std::to_string(v) +
                               ", not a node index in [0, " +
                               std::to_string(nodes->second) + ")");
        }
      } else if (index.role == "order") {
        std::vector<bool> used(count, false);
        for (int64_t i = 0; i < count; ++i) {
          int64_t v = tensor.indexAt(i);
          if (v < 0 || v >= count || used[v])
            return std::string(where + ": entry " + std::to_string(i) + " is " +
                               std::to_string(v) +
                               "; a CSR order must list each edge 0.." +
                               std::to_string(count - 1) + " exactly once");
          used[v] = true;
        }
      } else {
        auto edges = sizes.find("E");
        int64_t last = count == 0 ? 0 : tensor.indexAt(count - 1);
        if (count == 0 || tensor.indexAt(0) != 0 ||
            (edges != sizes.end() && last != edges->second))
          return std::string(
              where +
              ": row pointers must start at 0 and end at the edge "
              "count" +
              (edges != sizes.end() ? " E = " + std::to_string(edges->second)
                                    : std::string()));
        for (int64_t i = 1; i < count; ++i)
          if (tensor.indexAt(i) < tensor.indexAt(i - 1))
            return std::string(
                where + ": row pointers must not decrease, but entry " +
                std::to_string(i) + " is " + std::to_string(tensor.indexAt(i)) +
                " after " + std::to_string(tensor.indexAt(i - 1)));
      }
    }
  }
  for (const OpContract &contract : contracts) {
    if (!readIndices)
      break;
    for (const OpContract::Segments &csr : contract.segments) {
      const HostTensor &keys = inputs[csr.keys], &order = inputs[csr.order],
                       &rowptr = inputs[csr.rowptr];
      std::string where = "inputs '" + arguments[csr.order].name + "' and '" +
                          arguments[csr.rowptr].name +
                          "' (marked sezm.csr_of = \"" +
                          arguments[csr.keys].name + "\")";
      if (keys.numElements() != order.numElements())
        return where + ": '" + arguments[csr.keys].name + "' has " +
               std::to_string(keys.numElements()) + " edges, the order " +
               std::to_string(order.numElements());
      for (int64_t n = 0; n + 1 < rowptr.numElements(); ++n)
        for (int64_t t = rowptr.indexAt(n); t < rowptr.indexAt(n + 1); ++t) {
          int64_t e = order.indexAt(t);
          if (keys.indexAt(e) != n)
            return where + ": edge " + std::to_string(e) +
                   " is in the segment of node " + std::to_string(n) +
                   ", but its " + arguments[csr.keys].name + " is " +
                   std::to_string(keys.indexAt(e));
          // Sums over a range of the edges (sezm-chunk-edges) find the
          // range's part of a segment by bisection.
          if (t > rowptr.indexAt(n) && order.indexAt(t - 1) >= e)
            return where + ": the segment of node " + std::to_string(n) +
                   " lists edge " + std::to_string(e) + " after edge " +
                   std::to_string(order.indexAt(t - 1)) +
                   "; each segment must list its edges in increasing order";
        }
    }
  }
  return std::string();
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

namespace {
const char *typeCode(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F64:
    return "f64";
  case ElementType::I32:
    return "i32";
  case ElementType::I64:
    return "i64";
  }
  return "?";
}

bool parseTypeCode(const std::string &code, ElementType &type) {
  for (ElementType t :
       {ElementType::F32, ElementType::F64, ElementType::I32, ElementType::I64})
    if (code == typeCode(t)) {
      type = t;
      return true;
    }
  return false;
}

void writePort(std::ostringstream &os, const char *kind,
               const TensorPort &port) {
  os << kind << " " << port.name << " " << typeCode(port.type) << " "
     << port.shape.size();
  for (int64_t extent : port.shape)
    os << " " << extent;
  os << "\n";
}
} // namespace

std::string sezmrt::writeManifest(const std::vector<EntrySignature> &entries) {
  std::ostringstream os;
  os << "sezm-manifest 1\n";
  for (const EntrySignature &entry : entries) {
    os << "entry " << entry.function << "\n";
    if (!entry.typeMap.empty()) {
      os << "type_map";
      for (const std::string &species : entry.typeMap)
        os << " " << species;
      os << "\n";
    }
    if (entry.rcut > 0) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", entry.rcut);
      os << "rcut " << text << "\n";
    }
    if (!entry.gemmPrecision.empty())
      os << "gemm_precision " << entry.gemmPrecision << "\n";
    for (const TensorPort &port : entry.arguments)
      writePort(os, "arg", port);
    for (const TensorPort &port : entry.results)
      writePort(os, "result", port);
    for (const OpContract &contract : entry.contracts) {
      os << "contract " << contract.op << "\n";
      for (const auto &[symbol, extents] : contract.extents) {
        os << "extent " << symbol << " " << extents.size();
        for (const GraphExtent &e : extents)
          os << " " << e.argument << " " << e.axis << " " << e.offset;
        os << "\n";
      }
      for (const OpContract::IndexInput &index : contract.indices)
        os << "index " << index.argument << " " << index.operand << " "
           << index.role << "\n";
      for (const OpContract::Segments &csr : contract.segments)
        os << "segments " << csr.keys << " " << csr.order << " " << csr.rowptr
           << "\n";
    }
    os << "end\n";
  }
  return os.str();
}

std::string sezmrt::parseManifest(const std::string &text,
                                  std::vector<EntrySignature> &entries) {
  std::istringstream in(text);
  std::string line;
  int lineNumber = 0;
  auto bad = [&](const std::string &why) {
    return "manifest line " + std::to_string(lineNumber) + ": " + why;
  };
  if (!std::getline(in, line) || line != "sezm-manifest 1")
    return "not a sezm manifest (or an unsupported version)";
  ++lineNumber;
  EntrySignature *entry = nullptr;
  OpContract *contract = nullptr;
  while (std::getline(in, line)) {
    ++lineNumber;
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    if (keyword == "entry") {
      entries.emplace_back();
      entry = &entries.back();
      contract = nullptr;
      if (!(words >> entry->function))
        return bad("entry without a name");
    } else if (keyword == "type_map") {
      if (!entry)
        return bad("type_map outside an entry");
      for (std::string species; words >> species;)
        entry->typeMap.push_back(species);
      if (entry->typeMap.empty())
        return bad("an empty type_map");
    } else if (keyword == "rcut") {
      if (!entry)
        return bad("rcut outside an entry");
      if (!(words >> entry->rcut) || !(entry->rcut > 0))
        return bad("malformed rcut");
    } else if (keyword == "gemm_precision") {
      if (!entry)
        return bad("gemm_precision outside an entry");
      if (!(words >> entry->gemmPrecision) || entry->gemmPrecision != "tf32x3")
        return bad("malformed gemm_precision (expected tf32x3)");
    } else if (keyword == "arg" || keyword == "result") {
      if (!entry)
        return bad(keyword + " outside an entry");
      TensorPort port;
      std::string code;
      size_t rank;
      if (!(words >> port.name >> code >> rank) ||
          !parseTypeCode(code, port.type) || rank > 16)
        return bad("malformed " + keyword);
      port.shape.resize(rank);
      for (int64_t &extent : port.shape)
        if (!(words >> extent))
          return bad("malformed shape");
      (keyword == "arg" ? entry->arguments : entry->results).push_back(port);
    } else if (keyword == "contract") {
      if (!entry)
        return bad("contract outside an entry");
      entry->contracts.emplace_back();
      contract = &entry->contracts.back();
      std::getline(words >> std::ws, contract->op);
    } else if (keyword == "segments") {
      if (!contract)
        return bad("segments outside a contract");
      OpContract::Segments csr;
      int count = static_cast<int>(entry->arguments.size());
      if (!(words >> csr.keys >> csr.order >> csr.rowptr) || csr.keys < 0 ||
          csr.order < 0 || csr.rowptr < 0 || csr.keys >= count ||
          csr.order >= count || csr.rowptr >= count)
        return bad("malformed segments");
      contract->segments.push_back(csr);
    } else if (keyword == "extent" || keyword == "index") {
      if (!contract)
        return bad(keyword + " outside a contract");
      if (keyword == "extent") {
        std::string symbol;
        size_t count;
        if (!(words >> symbol >> count) || count > 4096)
          return bad("malformed extent");
        std::vector<GraphExtent> extents(count);
        for (GraphExtent &e : extents)
          if (!(words >> e.argument >> e.axis >> e.offset) || e.argument < 0 ||
              e.argument >= static_cast<int>(entry->arguments.size()) ||
              e.axis >= entry->arguments[e.argument].shape.size())
            return bad("malformed extent");
        contract->extents.emplace_back(symbol, std::move(extents));
      } else {
        OpContract::IndexInput index;
        if (!(words >> index.argument >> index.operand >> index.role) ||
            index.argument < 0 ||
            index.argument >= static_cast<int>(entry->arguments.size()) ||
            (index.role != "node" && index.role != "order" &&
             index.role != "rowptr"))
          return bad("malformed index");
        contract->indices.push_back(index);
      }
    } else if (keyword == "end") {
      entry = nullptr;
      contract = nullptr;
    } else if (!keyword.empty()) {
      return bad("unknown keyword '" + keyword + "'");
    }
  }
  return std::string();
}
