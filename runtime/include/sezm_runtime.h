/*===- sezm_runtime.h - run sezm artifacts on GPUs and CPUs ---------*- C
 *-*-===*
 *
 * Loads an artifact written by `sezm-compile`, binds host or device arrays
 * to its named inputs (or takes the weights it carries), runs an entry and
 * hands back its outputs, on an NVIDIA GPU or on the CPU. Uses only the
 * CUDA driver API, loaded with dlopen: a machine without a driver gets an
 * error, or the CPU code where the artifact has it, not a loader failure. No
 *errors cross the API as exceptions or aborts: calls return 0 on success (or
 *NULL) and sezm_last_error() says why.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SEZM_RUNTIME_H
#define SEZM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SEZM_F32 = 0,
  SEZM_F64 = 1,
  SEZM_I32 = 2,
  SEZM_I64 = 3
} sezm_dtype;

/* A dense C-ordered array in host or device memory. */
typedef struct {
  sezm_dtype dtype;
  int rank;
  int64_t shape[8];
  void *data;
  int on_device; /* 1: data is a CUDA device pointer */
} sezm_tensor;

typedef struct sezm_model sezm_model;

/* Where a model runs. AUTO: the GPU where the artifact has GPU code and a
 * GPU can be used, else the CPU where it has CPU code (sezm-compile
 * --target). */
typedef enum {
  SEZM_DEVICE_AUTO = 0,
  SEZM_DEVICE_CPU = 1,
  SEZM_DEVICE_GPU = 2
} sezm_device;

/* 1 when a CUDA driver and a GPU can be used; 0 otherwise, with
 * sezm_last_error() saying why ("no CUDA driver: ..."). */
int sezm_gpu_available(void);

/* Why the last failing call on this thread failed. */
const char *sezm_last_error(void);

/* Opens an artifact to run on `device`; NULL on failure (no code for the
 * device asked for, or no device that can run it). sezm_model_open is
 * sezm_model_open_on(path, SEZM_DEVICE_AUTO). The CPU code runs its loops
 * on OpenMP threads (OMP_NUM_THREADS, all cores by default); its results
 * are the same bits for any thread count. */
sezm_model *sezm_model_open(const char *path);
sezm_model *sezm_model_open_on(const char *path, sezm_device device);
void sezm_model_close(sezm_model *model);

/* The device the model runs on: SEZM_DEVICE_CPU or SEZM_DEVICE_GPU. */
sezm_device sezm_model_device(const sezm_model *model);

/* The entries of a model and their inputs and outputs. */
int sezm_model_entry_count(const sezm_model *model);

/* The species the model's type indices stand for (DeePMD-kit's type_map,
 * in index order) and its cutoff radius in A, where the model states them
 * (0 types and a cutoff of 0 where it does not): an MD engine maps its atom
 * types by name and builds its neighbour list within this cutoff. */
int sezm_model_type_count(const sezm_model *model);
const char *sezm_model_type_name(const sezm_model *model, int index);
double sezm_model_rcut(const sezm_model *model);
const char *sezm_model_entry_name(const sezm_model *model, int entry);
int sezm_model_input_count(const sezm_model *model, const char *entry);
int sezm_model_output_count(const sezm_model *model, const char *entry);
const char *sezm_model_input_name(const sezm_model *model, const char *entry,
                                  int index);
const char *sezm_model_output_name(const sezm_model *model, const char *entry,
                                   int index);

/* The element type of output `index` of `entry` (a sezm_dtype), or -1 where
 * there is no such output: an engine picks the float or the double
 * device-resident entry by the dtype of "forces". */
int sezm_model_output_dtype(const sezm_model *model, const char *entry,
                            int index);

/* 1 when the artifact carries input `index` of `entry` (its weights, from
 * sezm-compile --weights); 0 otherwise. */
int sezm_model_input_carried(const sezm_model *model, const char *entry,
                             int index);

/* Runs `entry` on inputs in argument order: all of them, or only those the
 * artifact does not carry (the carried ones are then taken from it, copied
 * to the device once per model). Inputs are checked against the manifest
 * (types, shapes, graph sizes, index ranges; the index checks when every
 * index input is on the host). Outputs are written to `outputs` (one per
 * result): host arrays owned by the model until the next run or close, or
 * device arrays when `outputs_on_device` is 1 (freed by
 * sezm_model_release_outputs). A model on the CPU takes host arrays only
 * and gives host arrays. */
int sezm_model_run(sezm_model *model, const char *entry,
                   const sezm_tensor *inputs, int input_count,
                   sezm_tensor *outputs, int output_count,
                   int outputs_on_device);
void sezm_model_release_outputs(sezm_model *model);

/* The device-resident entry for MD engines, with the arguments of
 * DeePMD-kit's compute_edges_gpu: runs `entry` (an energy's forces function,
 * sezm-compile --forces-of) on arrays already on the GPU and writes its
 * energy, forces and virial into the caller's device arrays. Nothing is
 * copied between host and device but a 4-byte status of the index checks.
 *   coord       float[natoms][3]   positions (A)
 *   atype       int32[natoms]      each atom's type, in [0, ntypes)
 *   edge_index  int64[2][nedges]   row 0: src (the neighbour, which sends
 *                                  the message), row 1: dst (the centre)
 *   edge_vec    float[nedges][3]   coord[src] - coord[dst] + lattice shift
 *   energy      float[1], force float[natoms][3], virial float[3][3] (out)
 * The entry's inputs are named as sezm-run --structure binds them
 * (positions, shift, src, dst, src_order, src_rowptr, dst_order,
 * dst_rowptr, types); the artifact carries the rest (its weights). The
 * shifts (edge_vec minus the position difference) and both CSRs are built
 * on the GPU, the same on every call. */
int sezm_model_compute_edges_gpu(sezm_model *model, const char *entry,
                                 int64_t natoms, int64_t nedges, int ntypes,
                                 const float *coord, const int32_t *atype,
                                 const int64_t *edge_index,
                                 const float *edge_vec, float *energy,
                                 float *force, float *virial);

/* The same in double, as LAMMPS and DeePMD-kit's C++ API hold positions:
 * coord double[natoms][3], edge_vec double[nedges][3], and energy double[1],
 * force double[natoms][3], virial double[3][3] (out). `entry` takes float64
 * positions and shift and returns float64 energy, forces and virial: an
 * imported DPA4 in its own precision (DeePMD-kit's split: an fp32 network
 * between fp64 edge vectors and fp64 energy, forces and virial) or in
 * float64. */
int sezm_model_compute_edges_gpu_f64(sezm_model *model, const char *entry,
                                     int64_t natoms, int64_t nedges, int ntypes,
                                     const double *coord, const int32_t *atype,
                                     const int64_t *edge_index,
                                     const double *edge_vec, double *energy,
                                     double *force, double *virial);

/* The same with host arrays, on the device the model runs on (the CPU, or
 * the GPU with the arrays copied there and back): coord double[natoms][3],
 * edge_vec double[nedges][3], energy double[1], force double[natoms][3],
 * virial double[3][3]. An entry in float32 gets its positions and shifts
 * rounded to float32 and its outputs widened to double. Edges shorter than
 * 0.2 A, non-finite vectors and node indices out of range are refused,
 * naming the edge. atom_energy double[natoms] and atom_virial
 * double[natoms][3][3] (each edge's virial term half to each end, as
 * DeePMD-kit's atomic outputs) may be NULL; where given, `entry` must return
 * them (sezm-compile --per-atom). */
int sezm_model_compute_edges(sezm_model *model, const char *entry,
                             int64_t natoms, int64_t nedges, int ntypes,
                             const double *coord, const int32_t *atype,
                             const int64_t *edge_index, const double *edge_vec,
                             double *energy, double *force, double *virial,
                             double *atom_energy, double *atom_virial);

/* A model in stages (sezm-compile --stages: @<energy>_stage<k> and their
 * backward) for a domain decomposition. The nodes are a rank's own atoms,
 * rows [0, nlocal), then ghost copies of atoms that it or other ranks own,
 * rows [nlocal, natoms), each at its own position (a periodic image where
 * it is one); every edge's centre (dst) is an own atom, its source any node,
 * edge_vec = coord[src] - coord[dst]. The stages run one after the other
 * on the host arrays (as sezm_model_compute_edges). After each stage but
 * the last, forward(ctx, features, natoms, width) gets its node features
 * (double[natoms][width], the stage's values widened) and must set each
 * ghost's row to its owner's (an MD engine's forward communication); the
 * last stage sums the energies of the own atoms. In the backward, before
 * each stage's, reverse(ctx, gradient, natoms, width) gets the gradient of
 * the features that stage returned and must add each ghost's row into its
 * owner's (reverse communication); the ghost rows are then taken as zero.
 * Every rank makes the same calls, one with no own atoms (nlocal = 0, no
 * edges) too. Outputs: the own atoms' energy double[1], the forces on every
 * node double[natoms][3] (a ghost's to be added to its owner's, as LAMMPS
 * does with newton_pair on) and the virial double[3][3] of this rank's
 * edges; where not NULL (sezm-compile --stages --per-atom), each own atom's
 * energy atom_energy double[nlocal] and each node's share of the virial
 * atom_virial double[natoms][3][3] (each edge's term half to each end, a
 * ghost's for its owner). */
typedef void (*sezm_exchange_fn)(void *ctx, double *rows, int64_t natoms,
                                 int64_t width);
/* The stages of @<energy> in the artifact (0 where it has none), and the
 * width of their node features (the values per atom an exchange moves). */
int sezm_model_stage_count(const sezm_model *model, const char *energy);
int64_t sezm_model_stage_width(const sezm_model *model, const char *energy);
int sezm_model_compute_edges_staged(
    sezm_model *model, const char *energy, int64_t natoms, int64_t nlocal,
    int64_t nedges, int ntypes, const double *coord, const int32_t *atype,
    const int64_t *edge_index, const double *edge_vec, sezm_exchange_fn forward,
    sezm_exchange_fn reverse, void *ctx, double *energy_out, double *force,
    double *virial, double *atom_energy, double *atom_virial);

/* A structure's neighbour graph, built on the GPU: every ordered pair and
 * periodic image of the atoms within `cutoff` (an atom and itself
 * untranslated excepted), ordered by destination, then source, then image,
 * with each edge's shift, the types and both CSRs. The search runs in
 * double: its edges are those of sezm's host list (sezm-run, sezm-graph)
 * of the same positions, in the same order.
 *   coord  device float[natoms][3]; atype device int32[natoms] in
 *          [0, ntypes), or NULL for no types
 *   cell   host double[9], the lattice vectors as rows, or NULL (no
 *          periodicity); pbc host int[3], periodic along each vector
 * The search is a cell list: O(natoms) work on the GPU for a fixed
 * density. Atoms closer than 0.2 A, a coordinate that is not finite, or a
 * cell too thin for 127 images within the cutoff are refused.
 * NULL on failure. */
typedef struct sezm_graph sezm_graph;
sezm_graph *sezm_graph_from_positions_gpu(int64_t natoms, const float *coord,
                                          const int32_t *atype, int ntypes,
                                          const double *cell, const int *pbc,
                                          double cutoff);
/* The same from positions in double, as MD engines and ASE hold them
 * (coord device double[natoms][3]): the graph's positions, shift and
 * edge_vec are double where `doubles` is 1 (for an entry in float64 or
 * DeePMD-kit's split), else float (the positions and shifts rounded, for
 * a float32 entry). */
sezm_graph *sezm_graph_from_positions_gpu_f64(
    int64_t natoms, const double *coord, const int32_t *atype, int ntypes,
    const double *cell, const int *pbc, double cutoff, int doubles);
int64_t sezm_graph_edge_count(const sezm_graph *graph);
/* A device array of the graph, owned by it: positions, shift, src, dst,
 * src_order, src_rowptr, dst_order, dst_rowptr, types (int64), edge_index
 * (int64 [2][E]) or edge_vec (float or double [E][3], as positions). */
int sezm_graph_array(const sezm_graph *graph, const char *name,
                     sezm_tensor *array);
void sezm_graph_free(sezm_graph *graph);

/* An MD engine's neighbour list on the GPU, for the steps between two of
 * its list builds: candidate pairs (the list's cutoff plus a skin) go up
 * once per build; each step uploads only the positions and keeps, on the
 * GPU, the candidates closer than the cutoff as edges for
 * sezm_model_compute_edges_gpu(_f64).
 *   nodes      the graph's atoms: rows [0, nodes) of the positions
 *   centre     int32[centres], the node whose edges come next (dst)
 *   start      int64[centres + 1], centre c's candidates [start[c],
 *              start[c + 1])
 *   neighbour  int32[start[centres]], each candidate's row of the positions
 *              (a node or one of its periodic images)
 *   source     int32[start[centres]], the node a candidate is an image of
 *              (src)
 * Edges come in candidate order: a centre's in the order given. NULL on
 * failure (an index out of range names the candidate). */
typedef struct sezm_pair_list sezm_pair_list;
sezm_pair_list *sezm_pair_list_create(int64_t nodes, int64_t centres,
                                      const int32_t *centre,
                                      const int64_t *start,
                                      const int32_t *neighbour,
                                      const int32_t *source);
/* One step: positions host double[points][3]; edge_vec = positions[
 * neighbour] - positions[centre] in double, rounded to float unless
 * `doubles`. Sets *nedges and returns 0; returns 2 when a candidate within
 * the cutoff is closer than 0.2 A or not a finite distance away, with the
 * first such in *bad_candidate (the runtime's refusal of such edges; the
 * caller names its atoms); 1 on any other failure. */
int sezm_pair_list_select(sezm_pair_list *list, int64_t points,
                          const double *positions, double cutoff, int doubles,
                          int64_t *nedges, int64_t *bad_candidate);
/* The last selection's device arrays, owned by the list until its next
 * selection: coord (float or double [nodes][3]), edge_index (int64
 * [2][nedges]) and edge_vec (float or double [nedges][3]). */
int sezm_pair_list_array(const sezm_pair_list *list, const char *name,
                         sezm_tensor *array);
void sezm_pair_list_free(sezm_pair_list *list);

/* Copies a device array into host memory of its size (`host`). */
int sezm_tensor_to_host(const sezm_tensor *device, void *host);

/* Copies a host array into a new device array (`device` gets its shape and
 * pointer), for inputs bound once and run many times. */
int sezm_tensor_to_device(const sezm_tensor *host, sezm_tensor *device);

/* A description of `data` (host memory, or device memory when on_device is
 * 1) of `dtype` and shape[0..rank); a rank outside 0-8 gives rank -1, which
 * every call refuses. */
sezm_tensor sezm_tensor_describe(sezm_dtype dtype, int rank,
                                 const int64_t *shape, const void *data,
                                 int on_device);
/* Frees a device array made by sezm_tensor_to_device. */
void sezm_tensor_free(sezm_tensor *device);

/* Wall time of the last run on the GPU (ms, from CUDA events). */
double sezm_model_last_run_ms(const sezm_model *model);

/* Per-kernel GPU time of the last run when profiling (ms, CUDA events around
 * each launch; profiling serializes launches). */
void sezm_set_profiling(int enabled);
int sezm_kernel_time_count(void);
const char *sezm_kernel_time_name(int index);
double sezm_kernel_time_ms(int index);

/* What the kernels named `name` were compiled to (the most over the loaded
 * modules that hold one): registers and local memory (spills and stack) per
 * thread, static shared memory per block. Returns 0, or -1 when no kernel
 * of that name is loaded. */
int sezm_kernel_resources(const char *name, int *registers, int *local_bytes,
                          int *shared_bytes);

/* How many kernel modules this process loaded from an artifact's cubin
 * and how many it JIT-compiled from PTX (no cubin, or one for another
 * chip). */
void sezm_module_loads(int *from_cubin, int *from_ptx);

/* Device memory held by sezm now and at most since the last reset. */
size_t sezm_device_bytes_in_use(void);
size_t sezm_device_bytes_peak(void);
void sezm_reset_device_peak(void);

/* Freed device blocks that sezm keeps for the next call's buffers of about
 * the same size (not in use, so not counted above), and their release to
 * the driver. An allocation that finds the device full releases them
 * itself. */
size_t sezm_device_bytes_cached(void);
void sezm_device_release_cache(void);

#ifdef __cplusplus
}
#endif

#endif /* SEZM_RUNTIME_H */
