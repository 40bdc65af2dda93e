// kernel-forge corpus: a stand-in for FAISS's faiss/gpu/utils/Tensor.cuh (facebookresearch/
// faiss, MIT licence), written after it: the members in their order (the data pointer,
// the strides, the sizes) and the element access round 77's kernel uses, nothing else.
#pragma once

#include <cstdint>

namespace faiss {

using idx_t = int64_t;

namespace gpu {

namespace traits {
template <typename T>
struct DefaultPtrTraits {
  typedef T* PtrType;
};
template <typename T>
struct RestrictPtrTraits {
  typedef T* __restrict__ PtrType;
};
}  // namespace traits

template <typename TensorType, int SubDim, template <typename U> class PtrTraits>
class SubTensor;

template <typename T,
          int Dim,
          bool InnerContig    = false,
          typename IndexT     = idx_t,
          template <typename U> class PtrTraits = traits::DefaultPtrTraits>
class Tensor {
 public:
  typedef T DataType;
  typedef IndexT IndexType;
  typedef typename PtrTraits<T>::PtrType DataPtrType;
  typedef Tensor<T, Dim, InnerContig, IndexT, PtrTraits> TensorType;
  static constexpr int NumDim = Dim;

  __host__ __device__ inline IndexT getSize(int i) const { return size_[i]; }
  __host__ __device__ inline IndexT getStride(int i) const { return stride_[i]; }
  __host__ __device__ inline DataPtrType data() const { return data_; }

  // the row of the leading index: a view one dimension down
  __host__ __device__ inline SubTensor<TensorType, Dim - 1, PtrTraits> operator[](IndexT index)
  {
    return SubTensor<TensorType, Dim - 1, PtrTraits>(*this, data_ + index * stride_[0]);
  }

 public:
  DataPtrType data_;
  IndexT stride_[Dim];
  IndexT size_[Dim];
};

// a view into a tensor: the element itself at dimension 0
template <typename TensorType, template <typename U> class PtrTraits>
class SubTensor<TensorType, 0, PtrTraits> {
 public:
  typedef typename TensorType::DataType T;
  __host__ __device__ SubTensor(TensorType& t, T* data) : data_(data) {}
  __host__ __device__ inline operator T&() { return *data_; }
  __host__ __device__ inline SubTensor& operator=(const T& v)
  {
    *data_ = v;
    return *this;
  }
  T* data_;
};

template <typename TensorType, int SubDim, template <typename U> class PtrTraits>
class SubTensor {
 public:
  typedef typename TensorType::DataType T;
  typedef typename TensorType::IndexType IndexT;
  __host__ __device__ SubTensor(TensorType& t, T* data) : tensor_(t), data_(data) {}
  __host__ __device__ inline SubTensor<TensorType, SubDim - 1, PtrTraits> operator[](IndexT index)
  {
    constexpr int dim = TensorType::NumDim - SubDim;
    return SubTensor<TensorType, SubDim - 1, PtrTraits>(tensor_,
                                                        data_ + index * tensor_.getStride(dim));
  }
  TensorType& tensor_;
  T* data_;
};

}  // namespace gpu
}  // namespace faiss
