// Point-in-polygon test (crossing number, even-odd rule) of num_points points against one
// polygon of num_vertices vertices held in constant memory. One int per point: 1 inside, 0 outside.
// Our own implementation of the parameter semantics of Kernel Tuner's pnpoly example.
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   block_size_x            threads per block
//   tile_size               points per thread (strided by block_size_x: coalesced accesses)
//   between_method          0..3: four equivalent formulations of "the point's y lies between the
//                           y of the edge's two end points" (half-open, see below)
//   use_precomputed_slopes  1: edge slopes dx/dy come from d_slopes (filled by the host) instead of
//                           being divided per edge per point
//   use_method              0: compare p.x with the edge's x at height p.y;
//                           1: sign of a cross product, no division
// and the problem size: num_points, num_vertices.
//
// The host builds the data so that no point lies within 1e-3 of an edge nor shares a y with a
// vertex, so every formulation gives bit-identical results (see measure_kt_spaces.cpp).

__constant__ float2 d_vertices[num_vertices];
__constant__ float d_slopes[num_vertices];   // d_slopes[k]: edge from vertex k to vertex k+1

// Is p.y between vk.y and vj.y? True when exactly one of the two vertex ys is above p.y.
__forceinline__ __device__ bool between(float py, float vjy, float vky)
{
#if between_method == 0
    return (vjy > py) != (vky > py);                       // comparison results differ
#elif between_method == 1
    return (vjy - py) * (vky - py) < 0.0f;                 // product of differences is negative
#elif between_method == 2
    return fminf(vjy, vky) <= py && py < fmaxf(vjy, vky);  // min/max interval test
#else
    return (__float_as_int(vjy - py) ^ __float_as_int(vky - py)) < 0;  // xor of sign bits
#endif
}

// Given between(): does the horizontal ray from p towards +x cross the edge (vk, vj)?
// slope = (vj.x - vk.x) / (vj.y - vk.y), identical for both vertex orders.
__forceinline__ __device__ bool crosses(float2 p, float2 vj, float2 vk, int k)
{
#if use_method == 0
#if use_precomputed_slopes == 1
    return p.x < vj.x + d_slopes[k] * (p.y - vj.y);
#else
    return p.x < vj.x + (vk.x - vj.x) * (p.y - vj.y) / (vk.y - vj.y);
#endif
#else
#if use_precomputed_slopes == 1
    return (p.x - vj.x) < d_slopes[k] * (p.y - vj.y);
#else
    // p.x < vj.x + dx*(p.y-vj.y)/dy  <=>  (p.x-vj.x)*dy - dx*(p.y-vj.y) has the sign opposite to dy
    const float dy = vk.y - vj.y;
    const float d = (p.x - vj.x) * dy - (vk.x - vj.x) * (p.y - vj.y);
    return (d < 0.0f) != (dy < 0.0f);
#endif
#endif
}

extern "C" __global__ void pnpoly_kernel(int* __restrict__ bitmap, const float2* __restrict__ points)
{
    const int first = blockIdx.x * (block_size_x * tile_size) + threadIdx.x;

    float2 p[tile_size];
    int c[tile_size];
#pragma unroll
    for (int t = 0; t < tile_size; t++) {
        const int i = first + t * block_size_x;
        p[t] = i < num_points ? points[i] : make_float2(0.0f, 0.0f);
        c[t] = 0;
    }

    // Edge (vk, vj) with k = j - 1 (cyclic); each edge is read once and tested for all points
    // of this thread.
    for (int j = 0, k = num_vertices - 1; j < num_vertices; k = j++) {
        const float2 vj = d_vertices[j];
        const float2 vk = d_vertices[k];
#pragma unroll
        for (int t = 0; t < tile_size; t++) {
            if (between(p[t].y, vj.y, vk.y) && crosses(p[t], vj, vk, k))
                c[t] = !c[t];
        }
    }

#pragma unroll
    for (int t = 0; t < tile_size; t++) {
        const int i = first + t * block_size_x;
        if (i < num_points)
            bitmap[i] = c[t];
    }
}
