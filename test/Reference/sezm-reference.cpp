//===- sezm-reference.cpp - the fp64 reference as a command ---------------===//
//
// sezm-reference OP OUT.npy IN.npy... [--lmax L] [--rank R]
//
// Computes one op with the fp64 reference (test/Reference) on .npy inputs,
// so that lit tests can hold what sezm-run computes against it:
//   wigner OUT edge_vec                     (--lmax)
//   rotate_mix OUT x src wigner kc cb      (--lmax, --rank >= 1)
//   segment_reduce OUT values order rowptr
//   envelope_aggregate OUT xl wigner env inv_sqrt_deg dst_order dst_rowptr
//
//===----------------------------------------------------------------------===//

#include "Reference/Reference.h"
#include "SeZM/Support/Npy.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace sezm::reference;
using sezmrt::HostTensor;

namespace {
[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "sezm-reference: %s\n", message.c_str());
  std::exit(1);
}

HostTensor read(const std::string &path) {
  HostTensor t;
  std::string error;
  if (!sezmrt::readNpy(path, t, error))
    fail(error);
  return t;
}

Array toArray(const HostTensor &t) {
  Array a(t.shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    a.data[i] = t.at(i);
  return a;
}

std::vector<int64_t> toIndices(const HostTensor &t) {
  std::vector<int64_t> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    v[i] = t.indexAt(i);
  return v;
}

Csr toCsr(const HostTensor &order, const HostTensor &rowptr) {
  return Csr{toIndices(order), toIndices(rowptr)};
}

void write(const std::string &path, const Array &a) {
  HostTensor t(sezmrt::ElementType::F64, a.shape);
  for (int64_t i = 0; i < a.size(); ++i)
    t.data<double>()[i] = a.data[i];
  std::string error;
  if (!sezmrt::writeNpy(path, t, error))
    fail(error);
}
} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args;
  int lmax = 3, rank = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help") {
      std::printf("usage: sezm-reference OP OUT.npy IN.npy... [--lmax L] "
                  "[--rank R]\n\nEvaluates one sezm op with the fp64 "
                  "reference of test/Reference (written\napart from the "
                  "compiler) on .npy inputs, for the lit tests.\n");
      return 0;
    }
    if (arg == "--lmax" && i + 1 < argc)
      lmax = std::atoi(argv[++i]);
    else if (arg == "--rank" && i + 1 < argc)
      rank = std::atoi(argv[++i]);
    else
      args.push_back(arg);
  }
  if (args.size() < 3)
    fail("usage: sezm-reference OP OUT.npy IN.npy... [--lmax L] [--rank R]");
  const std::string &op = args[0], &out = args[1];
  std::vector<HostTensor> in;
  for (size_t i = 2; i < args.size(); ++i)
    in.push_back(read(args[i]));
  auto need = [&](size_t count) {
    if (in.size() != count)
      fail(op + " takes " + std::to_string(count) + " inputs");
  };
  if (op == "wigner") {
    need(1);
    write(out, wigner(toArray(in[0]), lmax));
  } else if (op == "rotate_mix") {
    need(5);
    Array cb = toArray(in[4]);
    write(out,
          mix(rotate(toArray(in[0]), toIndices(in[1]), toArray(in[2]), lmax),
              toArray(in[3]), &cb, lmax, rank));
  } else if (op == "segment_reduce") {
    need(3);
    write(out, segmentReduce(toArray(in[0]), toCsr(in[1], in[2])));
  } else if (op == "envelope_aggregate") {
    need(6);
    write(out, envelopeAggregate(toArray(in[0]), toArray(in[1]), toArray(in[2]),
                                 toArray(in[3]), toCsr(in[4], in[5]), lmax));
  } else {
    fail("unknown op '" + op + "'");
  }
  return 0;
}
