//===- PlanMemory.cpp - buffer liveness, reuse and frees ------------------===//
//
// Plans the host code's buffers after bufferization: allocations sink to
// their first use, a freed buffer is taken over by a later allocation of the
// same type and extents, and buffers are freed after their last use. The
// peaks are reported as polynomials in the argument extents, so that one
// compile states the memory of every graph size.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Transforms/Passes.h"
#include "SeZM/Transforms/ProgramOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>

namespace mlir::sezm {
#define GEN_PASS_DEF_PLANMEMORY
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {

/// An integer polynomial in named extents: an extent or a byte count.
class Polynomial {
public:
  /// A product of symbols, as their sorted ids.
  using Monomial = std::vector<unsigned>;

  static Polynomial constant(int64_t value) {
    Polynomial p;
    p.add({}, value);
    return p;
  }
  static Polynomial symbol(unsigned id) {
    Polynomial p;
    p.add({id}, 1);
    return p;
  }

  Polynomial operator+(const Polynomial &other) const {
    Polynomial sum = *this;
    for (const auto &[monomial, coefficient] : other.terms)
      sum.add(monomial, coefficient);
    return sum;
  }
  Polynomial operator-(const Polynomial &other) const {
    return *this + other * constant(-1);
  }
  Polynomial operator*(const Polynomial &other) const {
    Polynomial product;
    for (const auto &[left, a] : terms)
      for (const auto &[right, b] : other.terms) {
        Monomial monomial = left;
        llvm::append_range(monomial, right);
        llvm::sort(monomial);
        product.add(monomial, a * b);
      }
    return product;
  }
  bool operator==(const Polynomial &other) const {
    return terms == other.terms;
  }
  /// The coefficient of the symbol alone (bytes per edge for E).
  int64_t coefficientOf(unsigned id) const {
    auto found = terms.find(Monomial{id});
    return found == terms.end() ? 0 : found->second;
  }

  /// Whether this is at least `other` for all extents >= 1. A sufficient
  /// test: the difference has no negative coefficient but perhaps the
  /// constant one, which its other coefficients outweigh (each of their
  /// monomials is at least 1).
  bool dominates(const Polynomial &other) const {
    int64_t constant = 0, outweigh = 0;
    for (const auto &[monomial, coefficient] : (*this - other).terms) {
      if (monomial.empty())
        constant = coefficient;
      else if (coefficient < 0)
        return false;
      else
        outweigh += coefficient;
    }
    return constant + outweigh >= 0;
  }

  /// The value at `values[id]` per symbol, if every symbol has one.
  std::optional<int64_t>
  evaluate(ArrayRef<std::optional<int64_t>> values) const {
    int64_t total = 0;
    for (const auto &[monomial, coefficient] : terms) {
      int64_t product = coefficient;
      for (unsigned id : monomial) {
        if (!values[id])
          return std::nullopt;
        product *= *values[id];
      }
      total += product;
    }
    return total;
  }

  /// E.g. "4352*E + 4096*N + 4"; highest degree first.
  std::string str(ArrayRef<std::string> names) const {
    if (terms.empty())
      return "0";
    std::string text;
    for (const auto &[monomial, coefficient] : llvm::reverse(terms)) {
      int64_t magnitude = coefficient < 0 ? -coefficient : coefficient;
      if (text.empty())
        text = coefficient < 0 ? "-" : "";
      else
        text += coefficient < 0 ? " - " : " + ";
      std::string product;
      for (unsigned id : monomial)
        product += (product.empty() ? "" : "*") + names[id];
      if (product.empty())
        text += std::to_string(magnitude);
      else if (magnitude == 1)
        text += product;
      else
        text += std::to_string(magnitude) + "*" + product;
    }
    return text;
  }

private:
  void add(const Monomial &monomial, int64_t coefficient) {
    int64_t sum = terms[monomial] + coefficient;
    if (sum == 0)
      terms.erase(monomial);
    else
      terms[monomial] = sum;
  }

  /// Ordered by (degree, symbols) so that printing is stable.
  struct ByDegree {
    bool operator()(const Monomial &a, const Monomial &b) const {
      if (a.size() != b.size())
        return a.size() < b.size();
      return a > b;
    }
  };
  std::map<Monomial, int64_t, ByDegree> terms;
};

/// The extents of a function's arguments as symbols, and the sizes of its
/// buffers in them.
class Extents {
public:
  explicit Extents(func::FuncOp func) : func(func) {}

  /// An index value traced through arithmetic to argument extents; a value
  /// it cannot trace is a symbol of its own.
  Polynomial of(Value index) {
    auto cached = cache.find(index);
    if (cached != cache.end())
      return cached->second;
    Polynomial result = trace(index);
    cache.try_emplace(index, result);
    return result;
  }

  /// The bytes of an allocation.
  Polynomial bytesOf(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    Polynomial bytes = Polynomial::constant(
        llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    unsigned dynamic = 0;
    for (int64_t size : type.getShape())
      bytes = bytes * (ShapedType::isDynamic(size)
                           ? of(alloc.getDynamicSizes()[dynamic++])
                           : Polynomial::constant(size));
    return bytes;
  }

  ArrayRef<std::string> names() const { return symbolNames; }

  unsigned symbol(StringRef name) {
    auto [it, inserted] = ids.try_emplace(name, symbolNames.size());
    if (inserted)
      symbolNames.push_back(name.str());
    return it->second;
  }

private:
  Polynomial trace(Value index) {
    APInt constant;
    if (matchPattern(index, m_ConstantInt(&constant)))
      return Polynomial::constant(constant.getSExtValue());
    Operation *def = index.getDefiningOp();
    if (auto dim = dyn_cast_or_null<memref::DimOp>(def))
      if (std::optional<int64_t> axis = dim.getConstantIndex())
        return extentOf(dim.getSource(), *axis, index);
    if (isa_and_nonnull<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
      Polynomial lhs = of(def->getOperand(0)), rhs = of(def->getOperand(1));
      if (isa<arith::AddIOp>(def))
        return lhs + rhs;
      return isa<arith::SubIOp>(def) ? lhs - rhs : lhs * rhs;
    }
    if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(def))
      return of(def->getOperand(0));
    // min(step, rest) of a chunk loop: at most the constant, which bounds
    // the peak (sezm-chunk-edges).
    if (isa_and_nonnull<arith::MinSIOp, arith::MinUIOp>(def))
      for (Value operand : def->getOperands())
        if (matchPattern(operand, m_ConstantInt(&constant)))
          return Polynomial::constant(constant.getSExtValue());
    return opaque();
  }

  /// Extent `axis` of `buffer`: a static size, or an argument's extent,
  /// named by its `sezm.extents` entry or as <name>[<axis>].
  Polynomial extentOf(Value buffer, int64_t axis, Value index) {
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.isDynamicDim(axis))
      return Polynomial::constant(type.getDimSize(axis));
    // A buffer of the body: its allocation's size, or its source's through
    // a view.
    if (Operation *def = buffer.getDefiningOp()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(def))
        return of(alloc.getDynamicSizes()[type.getDynamicDimIndex(axis)]);
      if (auto cast = dyn_cast<memref::CastOp>(def))
        return extentOf(cast.getSource(), axis, index);
      if (auto expand = dyn_cast<memref::ExpandShapeOp>(def)) {
        OpFoldResult size = expand.getMixedOutputShape()[axis];
        if (auto value = dyn_cast<Value>(size))
          return of(value);
        return Polynomial::constant(*getConstantIntValue(size));
      }
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
        Polynomial product = Polynomial::constant(1);
        SmallVector<ReassociationIndices> groups =
            collapse.getReassociationIndices();
        for (int64_t source : groups[axis])
          product = product * extentOf(collapse.getSrc(), source, index);
        return product;
      }
      if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
        // A rank-reducing subview drops unit dimensions: not followed.
        if (subview.getSourceType().getRank() == type.getRank())
          if (auto value = dyn_cast<Value>(subview.getMixedSizes()[axis]))
            return of(value);
      }
      return opaque();
    }
    auto arg = dyn_cast<BlockArgument>(buffer);
    if (!arg || arg.getOwner() != &func.getBody().front())
      return opaque();
    unsigned number = arg.getArgNumber();
    if (auto extents = func.getArgAttrOfType<ArrayAttr>(number, kExtentsAttr))
      if (auto entry = dyn_cast<StringAttr>(extents[axis]))
        if (std::optional<ExtentName> name = parseExtentName(entry.getValue()))
          return Polynomial::symbol(symbol(name->symbol)) +
                 Polynomial::constant(name->offset);
    return Polynomial::symbol(
        symbol(argumentName(func, number) + "[" + std::to_string(axis) + "]"));
  }

  Polynomial opaque() {
    return Polynomial::symbol(symbol("?" + std::to_string(opaqueCount++)));
  }

  func::FuncOp func;
  std::vector<std::string> symbolNames;
  llvm::StringMap<unsigned> ids;
  DenseMap<Value, Polynomial> cache;
  unsigned opaqueCount = 0;
};

/// Where a buffer is used, through its views: the first and last ops of the
/// body that hold a use, and whether it leaves the function or is freed.
struct BufferUses {
  Operation *first = nullptr, *last = nullptr;
  bool escapes = false, freed = false;
};

BufferUses usesOf(Value buffer, Block &body) {
  BufferUses uses;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<func::ReturnOp, func::CallOp, func::CallIndirectOp, scf::YieldOp>(
              user))
        uses.escapes = true;
      if (isa<memref::DeallocOp>(user))
        uses.freed = true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value)
          llvm::append_range(worklist, user->getResults());
      Operation *holder = body.findAncestorOpInBlock(*user);
      if (!holder)
        continue;
      if (!uses.first || holder->isBeforeInBlock(uses.first))
        uses.first = holder;
      if (!uses.last || uses.last->isBeforeInBlock(holder))
        uses.last = holder;
    }
  }
  return uses;
}

/// What planning one block found: the candidates for its peak and the
/// bytes it would hold without a plan.
struct BlockPlan {
  SmallVector<Polynomial> peaks;
  Polynomial unplanned = Polynomial::constant(0);
  unsigned buffers = 0, reused = 0, freed = 0;
};

struct PlanMemoryPass : sezm::impl::PlanMemoryBase<PlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitRemark() << "memory not planned: the body has control flow";
      return;
    }
    Extents extents(func);
    std::map<std::string, int64_t> at;
    for (StringRef binding : this->at) {
      auto [name, text] = binding.split('=');
      int64_t value;
      if (name.trim().empty() || text.trim().getAsInteger(10, value)) {
        func.emitError() << "sezm-plan-memory: 'at' takes NAME=INTEGER, got '"
                         << binding << "'";
        return signalPassFailure();
      }
      at[name.trim().str()] = value;
    }
    BlockPlan plan = planBlock(func.getBody().front(), extents);
    SmallVector<Polynomial> &peaks = plan.peaks;

    std::string peak;
    if (peaks.empty())
      peak = "0";
    else if (peaks.size() == 1)
      peak = peaks.front().str(extents.names());
    else
      peak = "max(" +
             llvm::join(llvm::map_range(peaks,
                                        [&](const Polynomial &p) {
                                          return p.str(extents.names());
                                        }),
                        ", ") +
             ")";
    InFlightDiagnostic remark = func.emitRemark();
    if (auto schedule = func->getAttrOfType<StringAttr>(kScheduleAttr))
      remark << schedule.getValue() << " schedule: ";
    remark << "@" << func.getSymName() << " planned peak " << peak
           << " bytes (unplanned " << plan.unplanned.str(extents.names())
           << "); " << plan.buffers << " buffers, " << plan.reused
           << " reused, " << plan.freed << " freed after last use";
    if (at.empty())
      return;
    SmallVector<std::optional<int64_t>> bound;
    for (const std::string &name : extents.names())
      bound.push_back(at.count(name) ? std::optional<int64_t>(at.at(name))
                                     : std::nullopt);
    std::optional<int64_t> plannedBytes = 0;
    for (const Polynomial &p : peaks) {
      std::optional<int64_t> value = p.evaluate(bound);
      plannedBytes = value && plannedBytes
                         ? std::optional(std::max(*plannedBytes, *value))
                         : std::nullopt;
    }
    std::optional<int64_t> unplannedBytes = plan.unplanned.evaluate(bound);
    remark << "; at";
    for (const auto &[name, value] : at)
      remark << " " << name << "=" << value;
    if (!plannedBytes || !unplannedBytes) {
      remark << ": not every extent has a value";
      return;
    }
    remark << ": planned " << *plannedBytes << " bytes, unplanned "
           << *unplannedBytes << " bytes";
  }

  /// Plans the allocations of `body` and, first, of the bodies of the loops
  /// in it (a chunk loop's buffers live one iteration): a loop's peak counts
  /// at the loop, on top of what is live around it.
  BlockPlan planBlock(Block &body, Extents &extents) {
    BlockPlan result;
    // In block order, so that the plan states its peaks in the same order
    // on every compile (an artifact's bytes depend on it).
    llvm::MapVector<Operation *, SmallVector<Polynomial>> loopPeaks;
    for (Operation &op : body)
      if (auto loop = dyn_cast<scf::ForOp>(&op)) {
        BlockPlan inner = planBlock(*loop.getBody(), extents);
        loopPeaks[&op] = inner.peaks;
        result.unplanned = result.unplanned + inner.unplanned;
        result.buffers += inner.buffers;
        result.reused += inner.reused;
        result.freed += inner.freed;
      }

    auto allocs = llvm::to_vector(body.getOps<memref::AllocOp>());
    for (memref::AllocOp alloc : allocs)
      result.unplanned = result.unplanned + extents.bytesOf(alloc);

    // Each allocation just before its first use: nothing holds memory
    // before it is needed.
    for (memref::AllocOp alloc : allocs) {
      BufferUses uses = usesOf(alloc, body);
      if (uses.first && alloc->isBeforeInBlock(uses.first))
        alloc->moveBefore(uses.first);
    }
    allocs = llvm::to_vector(body.getOps<memref::AllocOp>());

    // A buffer whose last use is behind an allocation of the same type and
    // extents, with no allocation in between, becomes that allocation: it
    // is held through the gap, which raises no peak because peaks are
    // reached at allocations (and in loops, which the gap holds none of).
    struct Planned {
      memref::AllocOp alloc;
      BufferUses uses;
      Polynomial bytes;
    };
    SmallVector<Planned> planned;
    for (memref::AllocOp alloc : allocs) {
      BufferUses uses = usesOf(alloc, body);
      Planned *donor = llvm::find_if(planned, [&](Planned &earlier) {
        return !earlier.uses.escapes && !earlier.uses.freed && !uses.freed &&
               earlier.uses.last && earlier.uses.last->isBeforeInBlock(alloc) &&
               noAllocationBetween(earlier.uses.last, alloc, loopPeaks) &&
               earlier.alloc.getType() == alloc.getType() &&
               sameExtents(extents, earlier.alloc, alloc);
      });
      if (donor == planned.end()) {
        planned.push_back({alloc, uses, extents.bytesOf(alloc)});
        continue;
      }
      alloc.getResult().replaceAllUsesWith(donor->alloc.getResult());
      alloc.erase();
      donor->uses = usesOf(donor->alloc, body);
      ++result.reused;
    }
    result.buffers += planned.size();

    // The peak is reached at an allocation, or inside a loop: the bytes
    // live there (and the loop's own peak), with every candidate that no
    // other one bounds.
    SmallVector<Polynomial> &peaks = result.peaks;
    SmallVector<Operation *> peakPoints;
    auto isLive = [](Operation *point, const Planned &other) {
      bool started = !point->isBeforeInBlock(other.alloc);
      bool ended = !other.uses.escapes && other.uses.last &&
                   other.uses.last->isBeforeInBlock(point);
      return started && !ended;
    };
    auto consider = [&](Polynomial live, Operation *point) {
      if (llvm::any_of(peaks,
                       [&](const Polynomial &p) { return p.dominates(live); }))
        return;
      for (size_t i = peaks.size(); i-- > 0;)
        if (live.dominates(peaks[i])) {
          peaks.erase(peaks.begin() + i);
          peakPoints.erase(peakPoints.begin() + i);
        }
      peaks.push_back(live);
      peakPoints.push_back(point);
    };
    auto liveAt = [&](Operation *point) {
      Polynomial live = Polynomial::constant(0);
      for (const Planned &other : planned)
        if (isLive(point, other))
          live = live + other.bytes;
      return live;
    };
    for (const Planned &point : planned)
      consider(liveAt(point.alloc), point.alloc);
    for (auto &[loop, inner] : loopPeaks)
      for (const Polynomial &loopPeak : inner)
        consider(liveAt(loop) + loopPeak, loop);
    if (explain)
      for (auto [peak, point] : llvm::zip_equal(peaks, peakPoints)) {
        SmallVector<const Planned *> live;
        for (const Planned &other : planned)
          if (isLive(point, other))
            live.push_back(&other);
        unsigned edgeSymbol = extents.symbol("E");
        llvm::sort(live, [&](const Planned *a, const Planned *b) {
          return a->bytes.coefficientOf(edgeSymbol) >
                 b->bytes.coefficientOf(edgeSymbol);
        });
        InFlightDiagnostic remark = mlir::emitRemark(point->getLoc());
        remark << "peak " << peak.str(extents.names())
               << (isa<memref::AllocOp>(point) ? " reached here"
                                               : " reached in this loop")
               << "; live:";
        for (const Planned *buffer : live)
          remark << "\n  " << buffer->bytes.str(extents.names()) << " at "
                 << buffer->alloc->getLoc();
      }

    if (freeBuffers) {
      OpBuilder builder(&getContext());
      for (Planned &buffer : planned) {
        if (buffer.uses.escapes || buffer.uses.freed)
          continue;
        Operation *last =
            buffer.uses.last ? buffer.uses.last : buffer.alloc.getOperation();
        builder.setInsertionPointAfter(last);
        memref::DeallocOp::create(builder, buffer.alloc.getLoc(),
                                  buffer.alloc.getResult());
        ++result.freed;
      }
    }
    return result;
  }

  /// Whether no allocation, nor a loop that allocates, lies strictly
  /// between `from` and `to`.
  static bool noAllocationBetween(
      Operation *from, Operation *to,
      const llvm::MapVector<Operation *, SmallVector<Polynomial>> &loopPeaks) {
    return !runsBetween(from, to, [&](Operation *op) {
      return isa<memref::AllocOp>(op) || !loopPeaks.lookup(op).empty();
    });
  }

  static bool sameExtents(Extents &extents, memref::AllocOp a,
                          memref::AllocOp b) {
    return llvm::all_of(
        llvm::zip_equal(a.getDynamicSizes(), b.getDynamicSizes()),
        [&](auto pair) {
          return extents.of(std::get<0>(pair)) == extents.of(std::get<1>(pair));
        });
  }
};
} // namespace
