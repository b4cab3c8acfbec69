/*===- GraphFrame.h - the neighbour search's cell, host and device -*- C -*-===*
 *
 * Passed by value from DeviceGraph.cpp to the kernels of GraphKernels.cu:
 * one definition for both compilers.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SEZM_RUNTIME_GRAPHFRAME_H
#define SEZM_RUNTIME_GRAPHFRAME_H

/* A periodic cell: lattice vectors as rows, the inverse (fractional =
 * cartesian * inverse), which axes are periodic and how many images to
 * search along each. Without a cell: the identity, nothing periodic. */
struct Frame {
  float cell[9];
  float inverse[9];
  int periodic[3];
  int reach[3];
  float cutoff2;
};

#endif /* SEZM_RUNTIME_GRAPHFRAME_H */
