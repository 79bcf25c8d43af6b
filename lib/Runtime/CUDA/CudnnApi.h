//===- CudnnApi.h - The slice of cuDNN we call ------------------*- C++ -*-===//
//
// Copied from cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h (cuDNN 9.19): the
// legacy descriptor API for 2-D convolutions, so that libcudnn.so.9 is
// loaded with dlopen and the runtime builds without cuDNN.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_CUDA_CUDNNAPI_H
#define ONEFLOW_LIB_RUNTIME_CUDA_CUDNNAPI_H

#include "CudaApi.h"

extern "C" {
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

typedef enum {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_INTERNAL_ERROR = 4000,
  CUDNN_STATUS_EXECUTION_FAILED = 5000,
} cudnnStatus_t;

typedef enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1 } cudnnDataType_t;
typedef enum { CUDNN_TENSOR_NCHW = 0 } cudnnTensorFormat_t;
typedef enum {
  CUDNN_CONVOLUTION = 0,
  CUDNN_CROSS_CORRELATION = 1
} cudnnConvolutionMode_t;
typedef enum {
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
  CUDNN_FMA_MATH = 3,
} cudnnMathType_t;
typedef enum {
  CUDNN_NON_DETERMINISTIC = 0,
  CUDNN_DETERMINISTIC = 1
} cudnnDeterminism_t;
/// Values 0..7 (IMPLICIT_GEMM ... WINOGRAD_NONFUSED); only passed through.
typedef int cudnnConvolutionFwdAlgo_t;
/// Values 0..5 (ALGO_0 ... WINOGRAD_NONFUSED); only passed through.
typedef int cudnnConvolutionBwdDataAlgo_t;

typedef struct cudnnConvolutionFwdAlgoPerfStruct {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
} cudnnConvolutionFwdAlgoPerf_t;

typedef struct cudnnConvolutionBwdDataAlgoPerfStruct {
  cudnnConvolutionBwdDataAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
} cudnnConvolutionBwdDataAlgoPerf_t;
}

#define ONEFLOW_CUDNN_FUNCTIONS(X)                                             \
  X(create, cudnnCreate, cudnnStatus_t, (cudnnHandle_t *))                     \
  X(destroy, cudnnDestroy, cudnnStatus_t, (cudnnHandle_t))                     \
  X(setStream, cudnnSetStream, cudnnStatus_t, (cudnnHandle_t, CUstream))       \
  X(getErrorString, cudnnGetErrorString, const char *, (cudnnStatus_t))        \
  X(createTensorDescriptor, cudnnCreateTensorDescriptor, cudnnStatus_t,        \
    (cudnnTensorDescriptor_t *))                                               \
  X(setTensor4dDescriptor, cudnnSetTensor4dDescriptor, cudnnStatus_t,          \
    (cudnnTensorDescriptor_t, cudnnTensorFormat_t, cudnnDataType_t, int, int,  \
     int, int))                                                                \
  X(destroyTensorDescriptor, cudnnDestroyTensorDescriptor, cudnnStatus_t,      \
    (cudnnTensorDescriptor_t))                                                 \
  X(createFilterDescriptor, cudnnCreateFilterDescriptor, cudnnStatus_t,        \
    (cudnnFilterDescriptor_t *))                                               \
  X(setFilter4dDescriptor, cudnnSetFilter4dDescriptor, cudnnStatus_t,          \
    (cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int, int,  \
     int, int))                                                                \
  X(destroyFilterDescriptor, cudnnDestroyFilterDescriptor, cudnnStatus_t,      \
    (cudnnFilterDescriptor_t))                                                 \
  X(createConvolutionDescriptor, cudnnCreateConvolutionDescriptor,             \
    cudnnStatus_t, (cudnnConvolutionDescriptor_t *))                           \
  X(setConvolution2dDescriptor, cudnnSetConvolution2dDescriptor,               \
    cudnnStatus_t,                                                             \
    (cudnnConvolutionDescriptor_t, int, int, int, int, int, int,               \
     cudnnConvolutionMode_t, cudnnDataType_t))                                 \
  X(setConvolutionGroupCount, cudnnSetConvolutionGroupCount, cudnnStatus_t,    \
    (cudnnConvolutionDescriptor_t, int))                                       \
  X(setConvolutionMathType, cudnnSetConvolutionMathType, cudnnStatus_t,        \
    (cudnnConvolutionDescriptor_t, cudnnMathType_t))                           \
  X(destroyConvolutionDescriptor, cudnnDestroyConvolutionDescriptor,           \
    cudnnStatus_t, (cudnnConvolutionDescriptor_t))                             \
  X(getForwardAlgorithm, cudnnGetConvolutionForwardAlgorithm_v7,               \
    cudnnStatus_t,                                                             \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,        \
     cudnnConvolutionFwdAlgoPerf_t *))                                         \
  X(getForwardWorkspaceSize, cudnnGetConvolutionForwardWorkspaceSize,          \
    cudnnStatus_t,                                                             \
    (cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,                    \
     cudnnConvolutionFwdAlgo_t, size_t *))                                     \
  X(convolutionForward, cudnnConvolutionForward, cudnnStatus_t,                \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     cudnnFilterDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnConvolutionFwdAlgo_t, void *, size_t, const void *,                  \
     cudnnTensorDescriptor_t, void *))                                         \
  X(getBackwardDataAlgorithm, cudnnGetConvolutionBackwardDataAlgorithm_v7,     \
    cudnnStatus_t,                                                             \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int *,        \
     cudnnConvolutionBwdDataAlgoPerf_t *))                                     \
  X(getBackwardDataWorkspaceSize,                                              \
    cudnnGetConvolutionBackwardDataWorkspaceSize, cudnnStatus_t,               \
    (cudnnHandle_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t,          \
     cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,                    \
     cudnnConvolutionBwdDataAlgo_t, size_t *))                                 \
  X(convolutionBackwardData, cudnnConvolutionBackwardData, cudnnStatus_t,      \
    (cudnnHandle_t, const void *, cudnnFilterDescriptor_t, const void *,       \
     cudnnTensorDescriptor_t, const void *, cudnnConvolutionDescriptor_t,      \
     cudnnConvolutionBwdDataAlgo_t, void *, size_t, const void *,              \
     cudnnTensorDescriptor_t, void *))                                         \
  X(addTensor, cudnnAddTensor, cudnnStatus_t,                                  \
    (cudnnHandle_t, const void *, cudnnTensorDescriptor_t, const void *,       \
     const void *, cudnnTensorDescriptor_t, void *))

#endif // ONEFLOW_LIB_RUNTIME_CUDA_CUDNNAPI_H
