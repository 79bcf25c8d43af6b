//===- CublasLtApi.h - The slice of cuBLASLt we call ------------*- C++ -*-===//
//
// Copied from cublasLt.h, cublas_api.h and library_types.h (cuBLAS 13.1):
// types, enum values and signatures, so that libcublasLt.so.13 is loaded
// with dlopen and the runtime builds without the toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_CUBLASLTAPI_H
#define ONEFLOW_LIB_RUNTIME_CUDA_CUBLASLTAPI_H

#include "CudaApi.h"

extern "C" {
typedef CUstream cudaStream_t;

typedef enum cudaDataType_t {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_16BF = 14,
} cudaDataType;

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16,
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;

typedef enum {
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
} cublasComputeType_t;

typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
  uint64_t data[32];
} cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct {
  uint64_t data[8];
} cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;

typedef enum { CUBLASLT_ORDER_COL = 0, CUBLASLT_ORDER_ROW = 1 } cublasLtOrder_t;

/// Attribute value types: ORDER int32, BATCH_COUNT int32,
/// STRIDED_BATCH_OFFSET int64.
typedef enum {
  CUBLASLT_MATRIX_LAYOUT_TYPE = 0,
  CUBLASLT_MATRIX_LAYOUT_ORDER = 1,
  CUBLASLT_MATRIX_LAYOUT_ROWS = 2,
  CUBLASLT_MATRIX_LAYOUT_COLS = 3,
  CUBLASLT_MATRIX_LAYOUT_LD = 4,
  CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,
  CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6,
} cublasLtMatrixLayoutAttribute_t;

/// Attribute value types: TRANSA/TRANSB int32 (cublasOperation_t), EPILOGUE
/// uint32, BIAS_POINTER and EPILOGUE_AUX_POINTER pointers, BIAS_BATCH_STRIDE
/// and EPILOGUE_AUX_LD int64, BIAS_DATA_TYPE int32 (cudaDataType).
typedef enum {
  CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,
  CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,
  CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,
  CUBLASLT_MATMUL_DESC_TRANSA = 3,
  CUBLASLT_MATMUL_DESC_TRANSB = 4,
  CUBLASLT_MATMUL_DESC_TRANSC = 5,
  CUBLASLT_MATMUL_DESC_FILL_MODE = 6,
  CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
  CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
  CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,
  CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,
  CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,
} cublasLtMatmulDescAttributes_t;

typedef enum {
  CUBLASLT_EPILOGUE_DEFAULT = 1,
  CUBLASLT_EPILOGUE_RELU = 2,
  CUBLASLT_EPILOGUE_BIAS = 4,
  CUBLASLT_EPILOGUE_RELU_BIAS = 2 | 4,
  CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 2 | 128 | 4,
  CUBLASLT_EPILOGUE_DRELU = 8 | 128,
  CUBLASLT_EPILOGUE_DRELU_BGRAD = 8 | 128 | 16,
  CUBLASLT_EPILOGUE_GELU = 32,
  CUBLASLT_EPILOGUE_GELU_BIAS = 32 | 4,
  CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 32 | 128 | 4,
  CUBLASLT_EPILOGUE_DGELU = 64 | 128,
  CUBLASLT_EPILOGUE_DGELU_BGRAD = 64 | 128 | 16,
  CUBLASLT_EPILOGUE_BGRADA = 256,
  CUBLASLT_EPILOGUE_BGRADB = 512,
} cublasLtEpilogue_t;

/// MAX_WORKSPACE_BYTES is uint64.
typedef enum {
  CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
  CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
} cublasLtMatmulPreferenceAttributes_t;

typedef struct {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
} cublasLtMatmulHeuristicResult_t;
}

#define ONEFLOW_CUBLASLT_FUNCTIONS(X)                                          \
  X(create, cublasLtCreate, cublasStatus_t, (cublasLtHandle_t *))              \
  X(destroy, cublasLtDestroy, cublasStatus_t, (cublasLtHandle_t))              \
  X(getStatusName, cublasLtGetStatusName, const char *, (cublasStatus_t))      \
  X(getStatusString, cublasLtGetStatusString, const char *, (cublasStatus_t))  \
  X(matmulDescCreate, cublasLtMatmulDescCreate, cublasStatus_t,                \
    (cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t))             \
  X(matmulDescDestroy, cublasLtMatmulDescDestroy, cublasStatus_t,              \
    (cublasLtMatmulDesc_t))                                                    \
  X(matmulDescSetAttribute, cublasLtMatmulDescSetAttribute, cublasStatus_t,    \
    (cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *,       \
     size_t))                                                                  \
  X(matrixLayoutCreate, cublasLtMatrixLayoutCreate, cublasStatus_t,            \
    (cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t))     \
  X(matrixLayoutDestroy, cublasLtMatrixLayoutDestroy, cublasStatus_t,          \
    (cublasLtMatrixLayout_t))                                                  \
  X(matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute,                \
    cublasStatus_t,                                                            \
    (cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t, const void *,    \
     size_t))                                                                  \
  X(preferenceCreate, cublasLtMatmulPreferenceCreate, cublasStatus_t,          \
    (cublasLtMatmulPreference_t *))                                            \
  X(preferenceDestroy, cublasLtMatmulPreferenceDestroy, cublasStatus_t,        \
    (cublasLtMatmulPreference_t))                                              \
  X(preferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute,              \
    cublasStatus_t,                                                            \
    (cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t,         \
     const void *, size_t))                                                    \
  X(algoGetHeuristic, cublasLtMatmulAlgoGetHeuristic, cublasStatus_t,          \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,           \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,   \
     cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,       \
     int *))                                                                   \
  X(matmul, cublasLtMatmul, cublasStatus_t,                                    \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,       \
     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,             \
     const void *, const void *, cublasLtMatrixLayout_t, void *,               \
     cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,     \
     cudaStream_t))

#endif // ONEFLOW_LIB_RUNTIME_CUDA_CUBLASLTAPI_H
