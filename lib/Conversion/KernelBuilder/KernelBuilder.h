//===- KernelBuilder.h - scalar math, loops and memory for kernels -*- C++
//-*-===//
//
// A small layer that lets each sezm kernel read like the loop nest it is.
// An Emitter holds the builder, location and float type that a kernel is
// emitted with; its methods emit loops, memory accesses and GPU
// operations. Num (a float), Jet (a float with its derivative along three
// directions) and Idx (an index; Idx32 where 32 bits are enough) carry the
// emitter of the op that made them and overload the arithmetic operators,
// so that math templated over Num and Jet emits the value and, for Jet,
// its forward-mode derivative. There is no emission state besides the
// Emitter a kernel is handed.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELBUILDER_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELBUILDER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <optional>

namespace mlir::sezm::kernel {

class Emitter;

/// An i1 value (a comparison's result) and the emitter that made it, so
/// that a select on it knows where to emit.
struct Cond {
  Cond(Value value, Emitter &emitter) : value(value), emitter(&emitter) {}
  operator Value() const { return value; }

  Value value;
  Emitter *emitter;
};

/// Reports a constant taken as a value with no emitter to emit it: a
/// kernel builder's bug, never a null value.
[[noreturn]] void reportConstantWithoutEmitter();

/// What Idx, Idx32 and Num share: a value and the emitter of the op that
/// made it, or a constant of type C, emitted where it meets a value (each
/// scalar's `in`; constants combined with constants fold).
template <typename C> struct EmittedScalar {
  EmittedScalar(C constant) : constant(constant) {}
  EmittedScalar(Value value, Emitter &emitter)
      : value(value), emitter(&emitter) {}
  /// The emitted value (a constant that met no value is reported: emit it
  /// with `in`).
  operator Value() const {
    (void)getEmitter();
    return value;
  }
  bool isConstant() const { return !emitter; }
  /// The emitter of a value (an index that a loop or a load made, say).
  Emitter &getEmitter() const {
    if (!emitter)
      reportConstantWithoutEmitter();
    return *emitter;
  }

  Value value;
  Emitter *emitter = nullptr;
  C constant = 0;
};

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// An index value, or an index constant.
struct Idx : EmittedScalar<int64_t> {
  using EmittedScalar::EmittedScalar;
  /// The value, a constant emitted by `emitter`.
  Value in(Emitter &emitter) const;
};

Idx operator+(Idx a, Idx b);
Idx operator-(Idx a, Idx b);
Idx operator*(Idx a, Idx b);
Idx operator/(Idx a, Idx b);
Idx operator%(Idx a, Idx b);
/// Unsigned a < b.
Cond operator<(Idx a, Idx b);
/// a == b.
Cond equal(Idx a, Idx b);
/// ceil(a / b).
Idx ceilDiv(Idx a, int64_t b);
/// The smaller of a and b (unsigned).
Idx min(Idx a, Idx b);

/// A 32-bit index, for the positions and edge indices that a hot loop
/// carries: on the GPU a 64-bit add or compare is two instructions and an
/// address from a 32-bit index one wide multiply-add. Only for values known
/// to stay below 2^31.
struct Idx32 : EmittedScalar<int32_t> {
  using EmittedScalar::EmittedScalar;
  /// The low 32 bits of an index below 2^31.
  static Idx32 narrow(Idx index);
  /// The index it is (zero-extended).
  Idx widen() const;
  Value in(Emitter &emitter) const;
};

Idx32 operator+(Idx32 a, Idx32 b);
Idx32 operator-(Idx32 a, Idx32 b);
/// Unsigned a < b.
Cond operator<(Idx32 a, Idx32 b);
/// The smaller of a and b (unsigned).
Idx32 min(Idx32 a, Idx32 b);

//===----------------------------------------------------------------------===//
// Floating-point scalars
//===----------------------------------------------------------------------===//

/// A floating-point value of its emitter's float type, or a constant that
/// is emitted where it meets a value. Constants combined with constants
/// fold here in double precision and are rounded once, to the float type,
/// where they are emitted.
struct Num : EmittedScalar<double> {
  using EmittedScalar::EmittedScalar;
  Value in(Emitter &emitter) const;
};

Num operator+(Num a, Num b);
Num operator-(Num a, Num b);
Num operator*(Num a, Num b);
Num operator/(Num a, Num b);
Num operator-(Num a);
Num sqrt(Num a);
Num exp(Num a);
Num log(Num a);
Num sin(Num a);
Num cos(Num a);
Num max(Num a, Num b);
/// The logistic function 1 / (1 + exp(-a)).
Num sigmoid(Num a);
/// cond ? a : b.
Num select(Cond cond, Num a, Num b);
Cond operator<(Num a, Num b);
Cond operator<=(Num a, Num b);
/// The machine epsilon of the float type that `like` is emitted in.
Num machineEpsilon(Num like);

/// A value with its derivatives along three directions (forward mode).
/// Constants carry no derivative, so that math on them emits nothing extra.
struct Jet {
  Num value;
  std::optional<std::array<Num, 3>> grad;
  Jet(Num value) : value(value) {}
  Jet(double constant) : value(constant) {}
  Jet(Num value, std::array<Num, 3> grad) : value(value), grad(grad) {}
  /// The k-th of three independent variables, with unit derivative along k.
  static Jet variable(Num value, int k);
  /// The derivative along direction k (zero for constants).
  Num derivative(int k) const;
};

Jet operator+(Jet a, Jet b);
Jet operator-(Jet a, Jet b);
Jet operator*(Jet a, Jet b);
Jet operator/(Jet a, Jet b);
Jet operator-(Jet a);
Jet sqrt(Jet a);
Jet exp(Jet a);
Jet log(Jet a);
Jet sin(Jet a);
Jet cos(Jet a);
Jet max(Jet a, Jet b);
Jet select(Cond cond, Jet a, Jet b);
Cond operator<(Jet a, Jet b);
Cond operator<=(Jet a, Jet b);
inline Jet machineEpsilon(const Jet &like) {
  return Jet(machineEpsilon(like.value));
}

/// A value with its derivative along one direction, over Jet: Dual<Jet>
/// carries the second derivatives d^2 f / (d dir d v_k) that a backward
/// differentiated again needs (forward mode over forward mode). Constants
/// carry no tangent, so that math on them emits nothing extra.
template <typename T> struct Dual {
  T value;
  std::optional<T> tangent;
  Dual(double constant) : value(constant) {}
  Dual(Num constant) : value(constant) {}
  Dual(T value, std::optional<T> tangent = std::nullopt)
      : value(value), tangent(tangent) {}
  /// The derivative along the direction (zero for constants).
  T derivative() const { return tangent ? *tangent : T(0.0); }
};

namespace detail {
/// The tangent of a result whose tangent is `fa` where only a has one, `fb`
/// where only b has one, and `fa + fb` where both have.
template <typename T, typename FA, typename FB>
std::optional<T> sumTangents(const Dual<T> &a, const Dual<T> &b, FA fa, FB fb) {
  if (a.tangent && b.tangent)
    return fa() + fb();
  if (a.tangent)
    return fa();
  if (b.tangent)
    return fb();
  return std::nullopt;
}
} // namespace detail

template <typename T> Dual<T> operator+(Dual<T> a, Dual<T> b) {
  return {a.value + b.value,
          detail::sumTangents(
              a, b, [&] { return *a.tangent; }, [&] { return *b.tangent; })};
}
template <typename T> Dual<T> operator-(Dual<T> a) {
  return {-a.value, a.tangent ? std::optional<T>(-*a.tangent) : std::nullopt};
}
template <typename T> Dual<T> operator-(Dual<T> a, Dual<T> b) {
  return {a.value - b.value,
          detail::sumTangents(
              a, b, [&] { return *a.tangent; }, [&] { return -*b.tangent; })};
}
template <typename T> Dual<T> operator*(Dual<T> a, Dual<T> b) {
  return {a.value * b.value, detail::sumTangents(
                                 a, b, [&] { return *a.tangent * b.value; },
                                 [&] { return a.value * *b.tangent; })};
}
template <typename T> Dual<T> operator/(Dual<T> a, Dual<T> b) {
  T quotient = a.value / b.value;
  return {quotient, detail::sumTangents(
                        a, b, [&] { return *a.tangent / b.value; },
                        [&] { return -(quotient * *b.tangent / b.value); })};
}
namespace detail {
/// f(a) with f'(a.value) given by `slope` (called only with a tangent).
template <typename T, typename Slope>
Dual<T> chainRule(const Dual<T> &a, T value, Slope slope) {
  if (!a.tangent)
    return Dual<T>(value);
  return {value, *a.tangent * slope()};
}
} // namespace detail

template <typename T> Dual<T> sqrt(Dual<T> a) {
  T root = sqrt(a.value);
  return detail::chainRule(a, root, [&] { return T(0.5) / root; });
}
template <typename T> Dual<T> exp(Dual<T> a) {
  T e = exp(a.value);
  return detail::chainRule(a, e, [&] { return e; });
}
template <typename T> Dual<T> log(Dual<T> a) {
  return detail::chainRule(a, log(a.value), [&] { return T(1.0) / a.value; });
}
template <typename T> Dual<T> sin(Dual<T> a) {
  return detail::chainRule(a, sin(a.value), [&] { return cos(a.value); });
}
template <typename T> Dual<T> cos(Dual<T> a) {
  return detail::chainRule(a, cos(a.value), [&] { return -sin(a.value); });
}
template <typename T> Cond operator<(Dual<T> a, Dual<T> b) {
  return a.value < b.value;
}
template <typename T> Cond operator<=(Dual<T> a, Dual<T> b) {
  return a.value <= b.value;
}
template <typename T> Dual<T> select(Cond cond, Dual<T> a, Dual<T> b) {
  std::optional<T> tangent;
  if (a.tangent || b.tangent)
    tangent = select(cond, a.derivative(), b.derivative());
  return {select(cond, a.value, b.value), tangent};
}
template <typename T> Dual<T> max(Dual<T> a, Dual<T> b) {
  return select(b < a, a, b);
}
template <typename T> Dual<T> machineEpsilon(const Dual<T> &like) {
  return Dual<T>(machineEpsilon(like.value));
}

/// A complex number over Num or Jet.
template <typename T> struct Complex { T re, im; };

template <typename T>
Complex<T> operator*(const Complex<T> &a, const Complex<T> &b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T>
Complex<T> operator+(const Complex<T> &a, const Complex<T> &b) {
  return {a.re + b.re, a.im + b.im};
}
template <typename T> Complex<T> scale(const T &s, const Complex<T> &a) {
  return {s * a.re, s * a.im};
}
template <typename T> Complex<T> conj(const Complex<T> &a) {
  return {a.re, -a.im};
}

/// Threads of a warp.
constexpr int64_t kWarpSize = 32;

/// The ids of one thread of a launch, and its workgroup buffers.
struct LaunchIds {
  std::array<Idx, 3> block, thread;
  SmallVector<Value> workgroup;
};

/// Where warpSumSpread leaves its sums: for each group of 32 values, the
/// index of the value whose total the lane holds (indices from `count` on
/// are padding) and whether the lane owns it (exactly one lane per value).
/// A function of the lane alone: compute it once, outside loops.
struct SpreadSlots {
  SmallVector<Idx> index;
  SmallVector<Value> owner;
};

/// Emits a kernel's ops: the builder, the location and the float type that
/// the values above and the loops and memory accesses below are emitted
/// with. Each value carries its emitter, so that arithmetic on values
/// needs none; what starts from no value (a loop, a load, a barrier) is a
/// method here.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc, FloatType floatType)
      : builder(builder), loc(loc), floatType(floatType) {}
  Emitter(const Emitter &) = delete;
  Emitter &operator=(const Emitter &) = delete;

  OpBuilder &builder;
  Location loc;
  FloatType floatType;
  /// Lets a multiply and an add fuse into one fma (rounded once): the GPU
  /// kernels' arithmetic, where it halves the instructions. Off for the
  /// loop kernels, whose sums the CPU reproduces exactly across fusions.
  bool contract = false;
  /// What each parallel loop and fill this emitter creates carries (the
  /// op's kernel configuration, on the GPU): such a loop becomes a kernel
  /// of its own, named by it.
  std::optional<NamedAttribute> loopAttr;
  /// Gives `op` (a parallel loop, fill or copy) loopAttr, where there is one.
  void markAsKernel(Operation *op);

  /// A value emitted by an op of this emitter's, as an index or a float.
  Idx index(Value value) { return Idx(value, *this); }
  Num num(Value value) { return Num(value, *this); }
  /// The float type's machine epsilon.
  Num machineEpsilon();

  // Memory and loops

  /// The values of `indices`, as ops take them.
  SmallVector<Value> indexValues(ArrayRef<Idx> indices);
  /// Loads a float element.
  Num load(Value memref, ArrayRef<Idx> indices);
  /// Loads `width` consecutive floats from memref[at...] along its last
  /// dimension as one access (the place aligned to the full width).
  SmallVector<Num> loadVector(Value memref, ArrayRef<Idx> at, int64_t width);
  /// Loads an integer element (a node or edge index) as an index.
  Idx loadIndex(Value memref, ArrayRef<Idx> indices);
  /// Stores a float element.
  void store(Num value, Value memref, ArrayRef<Idx> indices);
  /// Stores `values` to consecutive places from memref[at...] along its last
  /// dimension as one access (the place aligned to the full width): the
  /// counterpart of loadVector.
  void storeVector(ArrayRef<Num> values, Value memref, ArrayRef<Idx> at);
  /// Adds to a float element.
  void addTo(Num value, Value memref, ArrayRef<Idx> indices);
  /// Stores `value` into memref[indices], or acc's element there plus
  /// `value` where `acc` is given (an op's `plus` addend, added as the add
  /// it replaces).
  void storeAdded(Num value, Value acc, Value memref, ArrayRef<Idx> indices);
  /// The extent of a memref dimension.
  Idx dim(Value memref, int64_t axis);
  /// Sets every element of a float memref to zero.
  void fillZero(Value memref);
  /// Copies every element of `from` into `to` (of the same shape).
  void copy(Value from, Value to);

  /// for (i = lb; i < ub; ++i) body(i).
  void forRange(Idx lb, Idx ub, llvm::function_ref<void(Idx)> body);
  /// for (i = lb; i < ub; i += step) body(i).
  void forRangeStep(Idx lb, Idx ub, Idx step,
                    llvm::function_ref<void(Idx)> body);

  /// body(i) for lb <= i < ub, iterations independent of each other (each
  /// writes only its own outputs): the loop a GPU maps to threads.
  void parallelRange(Idx lb, Idx ub, llvm::function_ref<void(Idx)> body);

  /// The segment of a CSR that holds position t (0 <= t < rowptr[nodes]): the
  /// largest n with rowptr[n] <= t, by bisection, so that a loop over edge
  /// positions finds each edge's node without a node index array.
  Idx segmentOf(Value rowptr, Idx nodes, Idx t);

  /// The first position t in [lb, ub) with sorted[t] >= value, or ub, where
  /// sorted[lb..ub) increases (a CSR segment's edges): by bisection.
  Idx lowerBound(Value sorted, Idx lb, Idx ub, Idx value);

  /// The first position t in [lb, ub) where before(sorted[t]) fails, or ub,
  /// where it holds for a prefix of the range: by bisection, in as many
  /// steps as ub - lb has bits (segmentOf and lowerBound are its cases).
  Idx partitionPoint(Value sorted, Idx lb, Idx ub,
                     llvm::function_ref<Value(Idx)> before);

  /// Sums body(i) over lb <= i < ub, in order, for several sums at once:
  /// returns the sums, each starting from `init`.
  SmallVector<Num> sumRange(Idx lb, Idx ub, ArrayRef<Num> init,
                            llvm::function_ref<SmallVector<Num>(Idx)> body);
  /// Sums carried through lb, lb + step, ... < ub: body(i, current) gives
  /// the next; returns the last, or `init` for an empty range.
  SmallVector<Num>
  foldRangeStep(Idx lb, Idx ub, Idx step, ArrayRef<Num> init,
                llvm::function_ref<SmallVector<Num>(Idx, ArrayRef<Num>)> body);
  /// The same over 32-bit positions, with values of any type carried (edge
  /// indices loaded ahead of their use beside sums).
  SmallVector<Value> foldRangeStep(
      Idx32 lb, Idx32 ub, Idx32 step, ArrayRef<Value> init,
      llvm::function_ref<SmallVector<Value>(Idx32, ArrayRef<Value>)> body);
  /// The single-sum form of sumRange, starting from zero.
  Num sumRange(Idx lb, Idx ub, llvm::function_ref<Num(Idx)> body);

  /// The largest body(i) over lb <= i < ub, or `init` if larger (or the range
  /// is empty).
  Num maxRange(Idx lb, Idx ub, Num init, llvm::function_ref<Num(Idx)> body);

  /// if (cond) body().
  void ifThen(Value cond, llvm::function_ref<void()> body);
  /// if (cond) then() else otherwise().
  void ifThenElse(Value cond, llvm::function_ref<void()> then,
                  llvm::function_ref<void()> otherwise);
  /// cond ? then() : otherwise(), each giving the values that the branch
  /// yields (of the same types).
  SmallVector<Value>
  ifThenElseValues(Value cond, llvm::function_ref<SmallVector<Value>()> then,
                   llvm::function_ref<SmallVector<Value>()> otherwise);

  // GPU kernels

  /// A gpu.launch, named `name` once outlined, of `grid` blocks of `block`
  /// threads, with workgroup (shared) buffers of the given shapes in the
  /// emitter's float type.
  /// `blocksPerSm` > 0 asks the register allocator to fit that many blocks
  /// on a multiprocessor: the launch's `nvvm.minctasm` (PTX .minnctapersm),
  /// which `sezm-outline-kernels` moves onto the kernel.
  void launchKernel(StringRef name, std::array<Idx, 3> grid,
                    std::array<Idx, 3> block,
                    ArrayRef<SmallVector<int64_t>> workgroupShapes,
                    llvm::function_ref<void(const LaunchIds &)> body,
                    int64_t blocksPerSm = 0);

  /// Waits for every thread of the block (gpu.barrier).
  void barrier();

  /// Waits for every lane of the warp, and makes their workgroup-memory
  /// writes visible to each other (bar.warp.sync): lanes that exchange data
  /// through workgroup memory inside a loop whose trip count differs between
  /// the warps of a block, where a block barrier cannot go.
  void warpSync();

  /// The sum of `value` over the lanes of the warp, in every lane: a butterfly
  /// of shuffles, the same order on every run.
  Num warpSum(Num value);

  /// The sums of each of `values` over aligned groups of `lanes` lanes (a
  /// power of two, at most a warp), in every lane of its group: warpSum's
  /// butterfly on the group, each step's shuffles of all the values issued
  /// together so that their latencies overlap.
  SmallVector<Num> groupSum(ArrayRef<Num> values, int64_t lanes);

  /// Where warpSumSpread leaves the sums of `count` values in `lane`.
  SpreadSlots spreadSlots(int64_t count, Idx lane);

  /// Sums of `count` values (each lane's own) over the warp's lanes, spread
  /// over the lanes: the r-th result in lane L is the total of value
  /// spreadSlots(count, L).index[r]. Groups of 32 values cost 31 shuffles,
  /// not 32 * 5 as one warpSum each; values are asked for as they are
  /// consumed: value(k, addend) is the lane's value k plus `addend` (zero
  /// when absent), so that a value that is a sum of products can take the
  /// addition as one more fused multiply-add.
  ///
  /// The first halving trades value k of a group for its partner k + h (h
  /// half the group, padded to a power of two) between lanes 16 apart, lanes
  /// 16 to 31 keeping the partner: two selects per pair. Where
  /// `laneOrdered(k)` holds, the caller has already put the pair in lane
  /// order (lanes 16 to 31 give their share of value k + h as value(k), and
  /// of value k as value(k + h)), and the pair needs no select: value k then
  /// takes the partner's share as its addend.
  SmallVector<Num> warpSumSpread(
      int64_t count, llvm::function_ref<Num(int64_t, std::optional<Num>)> value,
      Idx lane, llvm::function_ref<bool(int64_t)> laneOrdered = nullptr);

  /// Sums each of `values` (every lane's own) over the warp's lanes and calls
  /// store(k, total) once per value, in the lane that holds value k's total
  /// (warpSumSpread, `slots` from spreadSlots(values.size(), lane)): the
  /// per-edge sums over channels of a warp-per-edge kernel.
  void storeWarpSums(ArrayRef<Num> values, Idx lane, const SpreadSlots &slots,
                     llvm::function_ref<void(Idx, Num)> store);

  // Tensor cores

  /// x (fp32) as the sum of two TF32 values, high + low, each an fp32 whose
  /// low 13 mantissa bits are zero: high is x rounded to TF32 (to nearest,
  /// ties away from zero), low the rest rounded the same way, so that
  /// high + low equals x to about 2^-22 of |x|.
  std::array<Num, 2> splitTF32(Num x);

  /// D = A B + C of one m16n8k8 TF32 tensor-core product (mma.sync) for the
  /// whole warp: A 16 x 8 (row-major), B 8 x 8 (column-major), C and D 16 x 8
  /// in fp32. With g = lane / 4 and t = lane % 4, this lane gives
  /// a = {A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]}, b = {B[t][g],
  /// B[t+4][g]} (TF32 values, as splitTF32 makes them) and
  /// c = {C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]}, and gets D's
  /// elements at C's places.
  SmallVector<Num> mmaTF32(ArrayRef<Num> a, ArrayRef<Num> b, ArrayRef<Num> c);

  /// table[i] for 0 <= i < table.size(), table[0] for larger i: one compare
  /// and select per run of consecutive entries (a row of kernel coefficients,
  /// kept Wigner-D entries); for per-lane constants outside loops.
  Idx lookup(Idx i, ArrayRef<int64_t> table);

  /// `value` as lane `from` of the warp holds it, in every lane.
  Num shuffleFrom(Num value, int64_t from);

  /// Values that every lane of a warp needs (an edge's Wigner-D entries, say),
  /// value k read by `loadAt(places[k])`, loaded together: lane L loads value
  /// L + 32 r for each round r and shuffles hand them round. One load per lane
  /// per 32 values instead of one broadcast load each: the warp has a few
  /// requests in flight instead of one per value. Lanes past the end load
  /// their round's first value again. All lanes of the warp must take part.
  SmallVector<Num> warpSharedLoad(ArrayRef<int64_t> places, Idx lane,
                                  llvm::function_ref<Num(Idx)> loadAt);

  /// Starts copying `width` consecutive floats from global from[at...] to
  /// workgroup to[toAt...] (4, 8 or 16 bytes, both places aligned to that)
  /// without waiting for them: the thread goes on while the load is in
  /// flight. The copy belongs to the next commitAsyncCopies() group. Where
  /// `present` is given and does not hold, the copy reads nothing and
  /// writes zeros (a product's depth past its end).
  void copyAsync(Value from, ArrayRef<Idx> at, Value to, ArrayRef<Idx> toAt,
                 int64_t width, std::optional<Cond> present = std::nullopt);
  /// Closes the thread's group of copies started since the last call.
  void commitAsyncCopies();
  /// Waits until at most `pending` of the thread's groups are in flight. The
  /// copies are then visible to the thread alone: warpSync() before lanes
  /// read each other's.
  void waitAsyncCopies(int64_t pending);

  /// Allocates a scratch float buffer with the given extents (sizes of dynamic
  /// dimensions are read from `extents`).
  Value allocateScratch(ArrayRef<int64_t> shape, ArrayRef<Idx> extents);
};

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_KERNELBUILDER_H
