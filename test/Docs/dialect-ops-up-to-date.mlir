// The committed op reference must be what the ODS generates.
// RUN: diff -u %sezm_obj_root/docs/SeZM/SeZMOps.md %sezm_src_root/docs/dialect-ops.md
