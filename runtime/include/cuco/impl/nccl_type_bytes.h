// cuco/impl/nccl_type_bytes.h: the bytes of one element of an NCCL data type, for the program
// layer's knobs (cuco/program/impl/gather_overlap.h) and emulation (nccl_emulation.h) and the
// device-initiated collectives' sizes (cuco/codesign/impl/collective_kernels.h type_size) alike.
// Plain host code; nothing of NCCL's device API.
#pragma once

#include <cstddef>

#include <nccl.h>

namespace cuco {

// 0 for a type this does not name (NCCL's fp8 kinds).
inline size_t NcclTypeBytes(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

}  // namespace cuco
