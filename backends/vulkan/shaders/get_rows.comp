#version 450
// dst F32 [n, T] = rows ids[T] of a table in any weight format. The table may be bound in
// chunks of rows (maxStorageBufferRange): a dispatch writes only the tokens whose id falls in
// its chunk [row0, row0 + rows).
// An id outside [0, rows of the table) is reported (binding 7) and its row left as it was.
// u: 0 n, 1 T, 2 row0, 3 rows in chunk, 4 table row bytes, 5 dst row bytes, 6 rows of the table,
//    15 node index + 1
#include "common.glsl"
#include "decode.glsl"
layout(local_size_x = 64) in;

void main() {
    const uint t = gl_WorkGroupID.x;
    if (t >= pc.u[1]) return;
    const int id = LOAD_I32(buf2, pc.off[2] + 4u * t);
    if (id < 0 || id >= int(pc.u[6])) {
        if (gl_LocalInvocationID.x == 0u) report_index_error(1u, id);
        return;
    }
    if (id < int(pc.u[2]) || id >= int(pc.u[2] + pc.u[3])) return;
    const uint ro = pc.off[1] + uint(id - int(pc.u[2])) * pc.u[4];
    const uint dro = pc.off[0] + t * pc.u[5];
    for (uint i = gl_LocalInvocationID.x; i < pc.u[0]; i += 64u)
        STORE_F32(buf0, dro + 4u * i, weight_at(ro, i));
}
