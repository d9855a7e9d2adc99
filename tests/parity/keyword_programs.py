"""Programs whose parameters, locals, loop variables, dynamic dimensions and kernels are named like
C++ keywords or like names generated C++ uses (codegen/cxx_names.py)."""
import ptokit.language as pl

auto = pl.dynamic("auto")      # a dynamic dimension named like a C++ keyword


@pl.program
class CxxKeywordNames:
    @pl.function(type=pl.FunctionType.InCore)
    def default(self, new: pl.Tensor[[auto, 64], pl.FP32], new_: pl.Scalar[pl.FP32], this: pl.Scalar[pl.INT32],
                delete: pl.Out[pl.Tensor[[auto, 64], pl.FP32]]) -> pl.Tensor[[auto, 64], pl.FP32]:
        for template in pl.range(auto // 16):
            switch = pl.load(new, [template * 16, 0], [16, 64])
            args = pl.adds(pl.mul(switch, new_), pl.cast(this, pl.FP32))
            delete = pl.store(args, [template * 16, 0], delete)
        return delete

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, new: pl.Tensor[[auto, 64], pl.FP32], new_: pl.Scalar[pl.FP32], this: pl.Scalar[pl.INT32],
             delete: pl.Out[pl.Tensor[[auto, 64], pl.FP32]]):
        orch_args = this + 1
        for case in pl.range(2):
            orch_args = orch_args + case
        delete = self.default(new, new_, orch_args, delete)
        return delete
