// kernel-forge test corpus: the common header of NVIDIA's sortingNetworks sample
// (NVIDIA/cuda-samples at 2b3dc333, Samples/2_Concepts_and_Techniques/sortingNetworks;
// BSD 3-clause), written for the corpus after it: the sample's `uint` and the C
// prototypes of its host side (validation and the two sorts), which device code
// compiled by NVRTC never calls.
typedef unsigned int uint;

// host-side checks of a sorted batch
extern "C" uint validateSortedKeys(uint *resKey, uint *srcKey, uint batchSize,
                                   uint arrayLength, uint numValues, uint dir);
extern "C" int validateValues(uint *resKey, uint *resVal, uint *srcKey, uint batchSize,
                              uint arrayLength);

// host-side launchers of the two networks
extern "C" uint bitonicSort(uint *d_DstKey, uint *d_DstVal, uint *d_SrcKey, uint *d_SrcVal,
                            uint batchSize, uint arrayLength, uint dir);
extern "C" void oddEvenMergeSort(uint *d_DstKey, uint *d_DstVal, uint *d_SrcKey,
                                 uint *d_SrcVal, uint batchSize, uint arrayLength, uint dir);
