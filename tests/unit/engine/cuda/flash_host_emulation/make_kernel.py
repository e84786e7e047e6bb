# Turns the flash forward's CUDA source (engine/tensor/cuda_attention.cpp) into host C++ for flash_host_emulation:
# drops the helpers shim.h redefines and the cp.async wait, and maps its shared memory onto the emulated block's.
import re,sys
src=open(sys.argv[1]).read()
body=re.search(r'kFlashSource = R"CUDA\((.*?)\)CUDA"',src,re.S).group(1)
# drop helpers redefined by the shim
m=re.search(r'__device__ __forceinline__ float cwb_exp2[^\n]*\n',body); body=body.replace(m.group(0),'')
for name in ['cwb_load_kv','cwb_q']:
    m=re.search(r'__device__ __forceinline__ [^\n]*\b'+name+r'\(.*?\n}\n',body,re.S)
    body=body.replace(m.group(0),'')
body=body.replace('asm volatile("cp.async.wait_group " CWB_PENDING ";\\n" ::: "memory");','')
body=re.sub(r'extern __shared__ __align__\(128\) cwb_u16 cwb_kv\[\];','cwb_u16* cwb_kv = (cwb_u16*)tl_smem;',body)
body=body.replace('__shared__ __align__(128) cwb_u16 sK[STAGES][BN * CWB_D];','cwb_u16 (*sK)[BN * CWB_D] = (cwb_u16 (*)[BN * CWB_D])tl_smem;')
body=body.replace('__shared__ __align__(128) cwb_u16 sV[STAGES][BN * CWB_D];','cwb_u16 (*sV)[BN * CWB_D] = (cwb_u16 (*)[BN * CWB_D])(tl_smem + STAGES * BN * CWB_D * 2);')
body=body.replace('extern "C" __global__ void __launch_bounds__(FWARPS * 32, FWARPS == 8 ? 2 : 1) CWB_ENTRY(','void CWB_ENTRY(')
assert 'asm' not in body, [l for l in body.split('\n') if 'asm' in l]
print(body)
