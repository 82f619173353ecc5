// Shared by every kernel: one descriptor set of eight storage buffers seen as 32-bit words
// (weights in any block format are read byte by byte from them), and one push-constant block.
// off[i] is the byte offset of binding i's tensor inside the bound range; u and f are the op's
// sizes, strides and factors (vk_ops.cpp documents each kernel's use).
#extension GL_EXT_control_flow_attributes : require

layout(push_constant) uniform PushConstants {
    uint off[8];
    uint u[16];
    float f[8];
} pc;

layout(std430, set = 0, binding = 0) buffer Buf0 { uint w[]; } buf0;
layout(std430, set = 0, binding = 1) buffer Buf1 { uint w[]; } buf1;
layout(std430, set = 0, binding = 2) buffer Buf2 { uint w[]; } buf2;
layout(std430, set = 0, binding = 3) buffer Buf3 { uint w[]; } buf3;
layout(std430, set = 0, binding = 4) buffer Buf4 { uint w[]; } buf4;
layout(std430, set = 0, binding = 5) buffer Buf5 { uint w[]; } buf5;
layout(std430, set = 0, binding = 6) buffer Buf6 { uint w[]; } buf6;
layout(std430, set = 0, binding = 7) buffer Buf7 { uint w[]; } buf7;

// Byte-addressed loads. 16-bit loads must be 2-aligned (every block format keeps its halves
// 2-aligned), 32-bit ones 4-aligned; U32U reads a 2-aligned 32-bit value.
#define LOAD_U8(B, o) ((B.w[(o) >> 2] >> (((o) & 3u) * 8u)) & 0xFFu)
#define LOAD_U16(B, o) ((B.w[(o) >> 2] >> (((o) & 2u) * 8u)) & 0xFFFFu)
#define LOAD_U32U(B, o) (LOAD_U16(B, o) | (LOAD_U16(B, (o) + 2u) << 16))
#define LOAD_F32(B, o) uintBitsToFloat(B.w[(o) >> 2])
#define LOAD_I32(B, o) int(B.w[(o) >> 2])
#define STORE_F32(B, o, v) B.w[(o) >> 2] = floatBitsToUint(v)

// Index errors (token ids, expert ids, KV cells outside their tables) in the kernels that read
// indices: binding 7 is the stream's error words, zeroed before a graph and read after it. The
// first report wins: word 0 = the node's index + 1 (u15), word 1 = what (1 token id, 2 expert
// id, 3 KV cell), word 2 = the value (the id, or the token's index for a KV cell).
#define REPORT_INDEX_ERROR(B, what, value)                    \
    if (atomicCompSwap(B.w[0], 0u, pc.u[15]) == 0u) {         \
        B.w[1] = (what);                                      \
        B.w[2] = uint(value);                                 \
    }
void report_index_error(uint what, int value) {
    REPORT_INDEX_ERROR(buf7, what, value)
}

float half_to_float(uint h) {
    return unpackHalf2x16(h).x;
}

// Halves (F16 weights and caches, block scales) at byte o of binding 1, 2 or 3: read as
// float16_t where the device has 16-bit storage (F16_STORAGE variants of the kernels), else
// unpacked from the 32-bit word. Both give the exact float value.
#ifdef F16_STORAGE
#extension GL_EXT_shader_16bit_storage : require
layout(std430, set = 0, binding = 1) readonly buffer Buf1H { float16_t h[]; } buf1h;
layout(std430, set = 0, binding = 2) readonly buffer Buf2H { float16_t h[]; } buf2h;
layout(std430, set = 0, binding = 3) readonly buffer Buf3H { float16_t h[]; } buf3h;
#define LOAD_HALF(BH, B, o) float(BH.h[(o) >> 1])
#else
#define LOAD_HALF(BH, B, o) half_to_float(LOAD_U16(B, o))
#endif

// Type ids: the GGUF ids of hearth::backend::DType.
const uint T_F32 = 0u;
const uint T_F16 = 1u;
const uint T_Q4_0 = 2u;
const uint T_Q4_1 = 3u;
const uint T_Q5_0 = 6u;
const uint T_Q5_1 = 7u;
const uint T_Q8_0 = 8u;
const uint T_Q2_K = 10u;
const uint T_Q3_K = 11u;
const uint T_Q4_K = 12u;
const uint T_Q5_K = 13u;
const uint T_Q6_K = 14u;
const uint T_IQ4_NL = 20u;
const uint T_IQ4_XS = 23u;
const uint T_BF16 = 30u;
