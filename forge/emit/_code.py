"""The pieces every lowering shares: an indenting code writer, the SSA emission of IR
expressions (each subexpression once, hoisted to the loop level where it is invariant),
chunked vector loads and stores with scalar tails, and the module scaffolding (header,
uniform struct, buffer declarations, entry point)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from ..errors import UnsupportedFeature
from ..ir import Expr
from ..ir._dtypes import TYPES
from ..ir._expr import walk
from ..ir._ops import LEAVES
from ..schedule import Schedule
from ._approx import one_plus_erf
from ._dialect import Dialect

__all__ = [
    "Code",
    "Values",
    "Emission",
    "EMITTER_VERSION",
    "CUDA_STATIC_SHARED",
    "ScheduleRefused",
    "plus",
    "short",
    "refuse_unroll",
]


class ScheduleRefused(UnsupportedFeature):
    """A schedule (or schedule and layout) this kernel cannot be lowered under; the
    message says why. Raised before any source is emitted."""


EMITTER_VERSION = 5
#: Static ``__shared__`` memory a CUDA block may declare; more must be dynamic shared
#: memory, which the launch asks for and the function opts in to.
CUDA_STATIC_SHARED = 48 * 1024
_COMMENT_WIDTH = 72


class Code:
    """Lines of source with indentation."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def line(self, text: str = "") -> None:
        self.lines.append("    " * self.depth + text if text else "")

    def comment(self, text: str) -> None:
        self.line(f"// {text}")

    @contextmanager
    def block(self, header: str | list[str]) -> Iterator[None]:
        """``header`` (ending in ``{``), an indented body, then ``}``."""
        for text in [header] if isinstance(header, str) else header:
            self.line(text)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.line("}")

    def otherwise(self) -> None:
        """Inside ``block``: close the if-branch and open its else-branch."""
        self.depth -= 1
        self.line("} else {")
        self.depth += 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def refuse_eight(buffers, target: str | None, pattern: str) -> None:
    """vec=8 is one 16-byte access per chunk of 2-byte elements: refused on WGSL (no
    8-wide vectors) and where any of the ``buffers`` moved in chunks is wider."""
    if target == "wgsl":
        raise ScheduleRefused(
            "vec=8 is unsupported, because WGSL has no 8-wide vectors (vec2 to vec4); "
            "it is CUDA's 16-byte access to 2-byte elements"
        )
    wide = [f"{b.name} is {b.dtype}" for b in buffers if TYPES[b.dtype].size != 2]
    if wide:
        raise ScheduleRefused(
            f"vec=8 moves 16 bytes at a time only for 2-byte elements (f16, bf16), and a "
            f"{pattern} kernel's {', '.join(wide)}: vec=4 already moves 16 bytes of "
            "4-byte elements"
        )


def refuse_unroll(schedule: Schedule, pattern: str) -> None:
    """Refuse the matmul's choices for another pattern: ``unroll=1`` (its lowering
    writes its register loops out always, so the schedule would only repeat another
    one) and ``mma=1``."""
    if schedule.unroll:
        raise ScheduleRefused(
            f"a {pattern} always writes its register loops out; unroll=1 is a matmul choice"
        )
    if schedule.mma:
        raise ScheduleRefused(f"a {pattern} has no matrix products; mma=1 is a matmul choice")


def plus(base: str, offset: int) -> str:
    """``base + offset`` as u32 index text (``base`` alone for offset 0)."""
    if offset == 0:
        return base
    return f"{offset}u" if base == "0u" else f"{base} + {offset}u"


def short(expr: Expr) -> str:
    text = str(expr)
    return text if len(text) <= _COMMENT_WIDTH else text[: _COMMENT_WIDTH - 3] + "..."


class Values:
    """SSA emission: ``get(expr)`` returns the text of ``expr``'s value, emitting a
    ``let`` for each subexpression not yet available. Leaves (loads, params, indices)
    and row reductions are ``bind``-ed by the lowering."""

    def __init__(self, dialect: Dialect, code: Code) -> None:
        self.d = dialect
        self.code = code
        self.env: dict[tuple, str] = {}
        self._count = 0
        # how ``1 + erf(u)`` of f32 is spelled instead of its sum, given u's text (None:
        # as the sum; see Emission.half_outputs)
        self.one_plus_erf: Callable[[str], str] | None = None

    def fresh(self, stem: str = "t") -> str:
        self._count += 1
        return f"fg_{stem}{self._count}"

    @contextmanager
    def scope(self) -> Iterator[None]:
        """Values emitted inside are forgotten after (they went out of scope)."""
        saved = dict(self.env)
        try:
            yield
        finally:
            self.env = saved

    def bind(self, expr: Expr, text: str) -> None:
        self.env[expr.key] = text

    def get(self, expr: Expr) -> str:
        if expr.op == "const":
            return self.d.literal(expr.attr[0], expr.dtype)
        found = self.env.get(expr.key)
        if found is not None:
            return found
        if expr.op in LEAVES or expr.op == "reduce":
            raise AssertionError(f"lowering bug: {expr} is not bound here")
        spell = self.one_plus_erf
        erf_of = _one_plus_erf(expr) if spell is not None else None
        if spell is not None and erf_of is not None:
            text = spell(self.get(erf_of))
        else:
            text = self.d.op(expr, [self.get(a) for a in expr.args])
        name = self.fresh()
        self.code.line(f"{self.d.let(name, expr.dtype, text)}  // {short(expr)}")
        self.env[expr.key] = name
        return name

    def hoist(self, exprs: Iterable[Expr], scopes: tuple[str, ...]) -> None:
        """Emit now every subexpression of ``exprs`` that varies only over ``scopes``
        and whose row reductions are already bound: loop-invariant code motion."""
        for expr in exprs:
            for node in walk(expr):
                if node.op in LEAVES or node.op == "reduce" or node.key in self.env:
                    continue
                if node.scope in scopes and all(
                    r.key in self.env for r in walk(node) if r.op == "reduce"
                ):
                    self.get(node)


def _one_plus_erf(expr: Expr) -> Expr | None:
    """``u`` where ``expr`` is ``1 + erf(u)`` (either order) of f32, else None."""
    if expr.op != "add" or expr.dtype != "f32":
        return None
    one, erf = sorted(expr.args, key=lambda a: a.op != "const")
    if one.op == "const" and one.attr[0] == 1.0 and erf.op == "erf":
        return erf.args[0]
    return None


class Emission:
    """One kernel being lowered for one target under one schedule."""

    def __init__(self, kernel, schedule: Schedule, dialect: Dialect) -> None:
        self.kernel = kernel
        # what the entry point computes: the kernel's body, or the last launch's of a
        # body of several (a matmul whose prepass launch rounds its operands)
        self.body = kernel.body.pattern.entry_body
        self.schedule = schedule
        self.d = dialect
        self.code = Code()
        self.values = Values(dialect, self.code)
        self._shared: list[str] = []
        self.decls = {decl.name: decl for decl in self.body.buffers()}
        self.vector_arrays: dict[str, int] = {}  # WGSL buffers declared as vectors
        # WGSL: the name a buffer is declared under where it is not its own (a prepass
        # matmul's GEMM reads its scratch a_tf32 and b_tf32 as a and b)
        self.binding_names: dict[str, str] = {}
        self._vector_types: set[tuple[str, int]] = set()  # (dtype, width) moved as vectors
        self.includes: list[str] = []  # headers a lowering needs (CUDA: mma.h)
        self.definitions: list[str] = []  # functions a lowering needs (after the helpers)
        # CUDA: the blocks a multiprocessor should hold at once (``__launch_bounds__``'s
        # second argument, which caps ptxas's registers a thread to make room for them)
        self.min_blocks = 1
        self.code.depth = 1
        # Every output f16 or bf16: float32 approximations whose error stays far within
        # half an ulp of either dtype, and that are faster or more accurate there:
        # ``1 + erf(u)`` is erfc(-u) (_approx.py), and on CUDA the online softmax's exp
        # is ``__expf`` (_rows.py)
        outputs = getattr(self.body, "outputs", ())  # map and rows name theirs
        self.half_outputs = bool(outputs) and all(e.dtype in ("f16", "bf16") for _, e in outputs)
        if self.half_outputs:
            self.values.one_plus_erf = self._one_plus_erf

    def _one_plus_erf(self, u: str) -> str:
        helper = one_plus_erf(self.d.target)
        if helper not in self.definitions:
            self.definitions.append(helper)
        return f"fg_one_plus_erf({u})"

    # -- building blocks -------------------------------------------------------------
    def declare_shared(self, text: str) -> None:
        """Declare workgroup memory spelled by the lowering itself (an alignment or a
        type the dialect's ``shared`` does not give)."""
        self._shared.append(text)

    def shared(self, name: str, dtype: str, size: int) -> str:
        """Declare workgroup memory of ``size`` values of ``dtype``."""
        self._shared.append(self.d.shared(name, dtype, size))
        return name

    def wide(self, name: str, text: str) -> str:
        """A let of index type wide enough for whole-buffer offsets."""
        self.code.line(self.d.let_wide(name, text))
        return name

    def uniform(self, name: str) -> str:
        """The text of uniform field ``name``."""
        return self.d.uniform(name, dict(self.kernel.uniform.fields)[name])

    def bind_uniforms(self) -> None:
        for name, dtype in self.kernel.uniform.fields:
            self.values.bind(Expr("param", dtype, attr=(name,)), self.d.uniform(name, dtype))

    def let(self, name: str, dtype: str, text: str) -> str:
        self.code.line(self.d.let(name, dtype, text))
        return name

    @contextmanager
    def c_tiles(self, tiles: str, tiles_n: str, bm: int, bn: int) -> Iterator[None]:
        """A grid-stride loop over the ``tiles`` blocks of ``c`` (``tiles_n`` per block
        row), each ``bm x bn``; inside, ``fg_m0`` and ``fg_n0`` are the block's origin."""
        d = self.d
        with self.code.block(
            d.loop("fg_tile", d.widen(d.group_linear), tiles, d.widen(d.group_count), wide=True)
        ):
            self.let("fg_m0", "u32", f"{d.narrow('fg_tile')} / {tiles_n} * {bm}u")
            self.let("fg_n0", "u32", f"{d.narrow('fg_tile')} % {tiles_n} * {bn}u")
            yield

    def ceil_div(self, value: str, divisor: int) -> str:
        """``ceil(value / divisor)`` in u32 without overflowing near 2**32."""
        if divisor == 1:
            return value
        extra = self.d.select(f"{value} % {divisor}u != 0u", "1u", "0u")
        return f"({value} / {divisor}u + {extra})"

    def vec_ok(self, buffers: Iterable[str], width: int, extra: str = "") -> str | None:
        """A bool value: every buffer is aligned for ``width``-wide vector access
        (CUDA); None when vector loads are not used."""
        names = [b for b in buffers if self.d.vector(self.decls[b].dtype, width)]
        if not names or width == 1 or not self.d.pointer_vectors:
            return None
        size = max(TYPES[self.decls[b].dtype].size for b in names)
        mask = size * width - 1  # bytes
        pointers = " | ".join(f"(unsigned long long){b}" for b in names)
        text = f"(({pointers}) & {mask}ull) == 0ull"
        return self.let(self.values.fresh("vec_ok"), "bool", f"{text}{extra}")

    def vectorize(self, buffers: Iterable[str], width: int) -> None:
        """On WGSL, declare ``buffers`` of 32-bit or f16 elements as arrays of
        ``width``-vectors: WGSL cannot view an ``array<f32>`` as vectors, and a whole
        chunk should move as one vector. The wgpu backend binds such views rounded up to
        whole vectors, so the last, partial vector of a buffer lies inside its binding."""
        if self.d.pointer_vectors or width == 1:
            return
        for name in buffers:
            if self.d.vector(self.decls[name].dtype, width):
                self.vector_arrays[name] = width

    def element(self, buffer: str, index: str) -> str:
        """A reference to element ``index`` of ``buffer``: on WGSL, of a buffer declared
        as vectors (``vectorize``), a component of its vector, ``buffer[index / w][index
        % w]``. A store of it writes that component's bytes where naga or Tint lower it
        to a store through a SPIR-V access chain (Vulkan); WGSL would let an
        implementation write the whole vector back, which could race with the
        invocation writing the vector's other components (a row of ``cols % w != 0``
        shares its last vector with the next row's first)."""
        width = self.vector_arrays.get(buffer)
        if width is None:
            return f"{buffer}[{index}]"
        return f"{buffer}[({index}) / {width}u][({index}) % {width}u]"

    def _lane(
        self, buffer: str, element: str, parts: list[str], index: str, i: int, vec_ok: str | None
    ) -> str:
        """Lane ``i`` of the chunk at ``index`` of ``buffer``, declared as vectors: a
        component of the chunk's vector ``element`` where every chunk starts on one
        (``vec_ok`` None), else the element's own component (``element``)."""
        if vec_ok is None:
            return f"{element}.{parts[i]}"
        return self.element(buffer, plus(index, i))

    def unrolled(self, var: str, count: int, body) -> None:
        """``body()`` for ``var`` = 0 .. ``count`` - 1: a loop the compiler unrolls on
        CUDA; on WGSL, which has no unroll hint, written out ``count`` times with ``var``
        a constant, so that indices into local arrays are constants the driver can keep
        in registers."""
        code, v = self.code, self.values
        if self.d.pointer_vectors:
            with code.block(self.d.loop(var, "0u", f"{count}u", "1u", unroll=True)), v.scope():
                body()
            return
        for k in range(count):
            with code.block("{"), v.scope():
                code.line(f"const {var}: u32 = {k}u;")
                body()

    # -- chunks ------------------------------------------------------------------------
    def load_chunk(
        self,
        buffer: str,
        dest: str,
        dest_base: str,
        index: str,
        pos: str,
        limit: str | None,
        width: int,
        vec_ok: str | None,
        vindex: str = "",
        into: str | None = None,
    ) -> None:
        """``dest[dest_base + l] = buffer[index + l]`` for each lane ``l`` with
        ``pos + l < limit`` (every lane when ``limit`` is None): one vector load when
        the whole chunk is in range (and, on CUDA, aligned), else lane by lane. A buffer
        declared as vectors (``vectorize``) is addressed by its vector index ``vindex``
        (``index / width``, where every chunk starts on a vector) and its lanes are
        components of that vector; with ``vec_ok`` (a chunk starts on a vector only when
        it holds, as in rows whose length may not be a multiple of ``width``) the
        whole-vector load is taken when it holds and each lane is otherwise its own
        component (``element``). ``into`` names
        the dtype ``dest`` holds when it differs from the buffer's: each element is
        converted (on CUDA after one vector load, like any chunk; on WGSL lane by lane)."""
        dtype = self.decls[buffer].dtype
        d = self.d
        if into is not None and into != dtype:

            def convert(value: str) -> str:
                return d.cast(value, dtype, into)
        else:

            def convert(value: str) -> str:
                return value

        parts = d.lanes(width)
        whole: list[str] | None
        if buffer in self.vector_arrays:
            element = f"{buffer}[{vindex or f'({index}) / {width}u'}]"
            whole = [d.let("fg_q", f"vec{width}<{dtype}>", element)]
            whole += [
                f"{dest}[{plus(dest_base, i)}] = {convert(f'fg_q.{p}')};"
                for i, p in enumerate(parts)
            ]

            def component(i: int) -> str:
                return self._lane(buffer, element, parts, index, i, vec_ok)

            self._chunk(
                width,
                pos,
                limit,
                lambda i: f"{dest}[{plus(dest_base, i)}] = {convert(component(i))};",
                whole,
                vec_ok,
            )
            return
        whole = None
        vt = d.vector(dtype, width)
        if vt and vec_ok:
            self._vector_types.add((dtype, width))
            whole = [f"const {vt} fg_q = *reinterpret_cast<const {vt}*>(&{buffer}[{index}]);"] + [
                f"{dest}[{plus(dest_base, i)}] = {convert(f'fg_q.{p}')};"
                for i, p in enumerate(parts)
            ]
        self._chunk(
            width,
            pos,
            limit,
            lambda i: (
                f"{dest}[{plus(dest_base, i)}] = {convert(d.load(buffer, plus(index, i), dtype))};"
            ),
            whole,
            vec_ok,
        )

    def packs(self, dtype: str, width: int) -> bool:
        """Whether a register array of ``dtype`` chunks ``width`` wide is held packed,
        two halves to a 32-bit word (``load_packed_chunk``): CUDA, f16 or bf16, an
        even width whose chunk one unsigned vector moves."""
        return dtype in self.d.HALF_BITS and width in self.d.WORDS

    def load_packed_chunk(
        self,
        buffer: str,
        dest: str,
        dest_base: str,
        index: str,
        pos: str,
        limit: str | None,
        width: int,
        vec_ok: str | None,
    ) -> None:
        """``load_chunk`` of halves into an array of 32-bit words ``dest`` (zeroed where
        it is declared), element ``i`` of the chunk in the low (even ``i``) or high half
        of word ``dest_base + i / 2``, as the bytes lie in memory: a whole chunk is one
        unsigned vector load (``uint2`` for 4 halves) stored word by word, a partial one
        ORs each lane's bits into its word. ptxas gives each of the unpacked ``__half``
        or ``__nv_bfloat16`` values of a register array a 32-bit register of its own
        (NVRTC 13.5 for sm_90: layernorm_bf16 at ``wg=256,ipt=32,vec=4`` took 255
        registers and still spilled), so a row of halves held that way takes as many
        registers as the same row of floats; packed, it takes half (see
        ``_rows.CUDA_PACKED_HALF_ROWS`` for what that gained)."""
        dtype = self.decls[buffer].dtype
        d = self.d
        as_bits = d.HALF_BITS[dtype][0]
        words = d.WORDS[width]
        whole: list[str] | None = None
        if vec_ok:
            # one word (2 halves) is the unsigned int itself; more are its lanes
            got = [f"fg_q.{p}" for p in d.lanes(width // 2)] if width > 2 else ["fg_q"]
            whole = [f"const {words} fg_q = *reinterpret_cast<const {words}*>(&{buffer}[{index}]);"]
            whole += [f"{dest}[{plus(dest_base, i)}] = {word};" for i, word in enumerate(got)]

        def lane(i: int) -> str:
            bits = f"(unsigned int){as_bits}({d.load(buffer, plus(index, i), dtype)})"
            shifted = f"({bits} << 16)" if i % 2 else bits
            return f"{dest}[{plus(dest_base, i // 2)}] |= {shifted};"

        self._chunk(width, pos, limit, lane, whole, vec_ok)

    def packed_element(self, dest: str, dtype: str, word: str, high: bool) -> str:
        """The half of ``dtype`` held in the low or ``high`` half of ``dest[word]``."""
        from_bits = self.d.HALF_BITS[dtype][1]
        bits = f"({dest}[{word}] >> 16)" if high else f"({dest}[{word}] & 0xffffu)"
        return f"{from_bits}((unsigned short){bits})"

    def store_chunk(
        self,
        buffer: str,
        src: str,
        src_base: str,
        index: str,
        pos: str,
        limit: str | None,
        width: int,
        vec_ok: str | None,
        vindex: str = "",
    ) -> None:
        """``buffer[index + l] = src[src_base + l]`` for the lanes in range; a tail
        writes only its own lanes (through the vector's components for a buffer
        declared as vectors; ``vindex`` and ``vec_ok`` as in ``load_chunk``)."""
        dtype = self.decls[buffer].dtype
        d = self.d
        values = [f"{src}[{plus(src_base, i)}]" for i in range(width)]
        whole: list[str] | None
        if buffer in self.vector_arrays:
            element = f"{buffer}[{vindex or f'({index}) / {width}u'}]"
            parts = d.lanes(width)
            whole = [f"{element} = {d.vector(dtype, width)}({', '.join(values)});"]

            def component(i: int) -> str:
                return self._lane(buffer, element, parts, index, i, vec_ok)

            self._chunk(
                width, pos, limit, lambda i: f"{component(i)} = {values[i]};", whole, vec_ok
            )
            return
        whole = None
        vt = d.vector(dtype, width)
        if vt and vec_ok:
            self._vector_types.add((dtype, width))
            whole = [f"*reinterpret_cast<{vt}*>(&{buffer}[{index}]) = {d.make_vector(vt, values)};"]
        self._chunk(
            width,
            pos,
            limit,
            lambda i: d.store(buffer, plus(index, i), dtype, values[i]),
            whole,
            vec_ok,
        )

    def _chunk(
        self,
        width: int,
        pos: str,
        limit: str | None,
        lane,
        whole: list[str] | None,
        vec_ok: str | None,
    ) -> None:
        """``whole`` (or every ``lane(i)``) when the chunk at ``pos`` is entirely below
        ``limit`` (and ``vec_ok``), else each ``lane(i)`` guarded by its position. A
        ``limit`` of None says the caller knows the chunk is in range."""
        code = self.code
        if limit is None:
            if whole and vec_ok:
                with code.block(f"if ({vec_ok}) {{"):
                    for text in whole:
                        code.line(text)
                    code.otherwise()
                    for i in range(width):
                        code.line(lane(i))
                return
            for text in whole or [lane(i) for i in range(width)]:
                code.line(text)
            return
        if width == 1:
            with code.block(f"if ({pos} < {limit}) {{"):
                code.line(lane(0))
            return
        full = f"{pos} + {width}u <= {limit}"
        with code.block(f"if ({vec_ok} && {full}) {{" if whole and vec_ok else f"if ({full}) {{"):
            for text in whole or [lane(i) for i in range(width)]:
                code.line(text)
            code.otherwise()
            for i in range(width):
                code.line(f"if ({plus(pos, i)} < {limit}) {{ {lane(i)} }}")

    # -- the module --------------------------------------------------------------------
    def header(self, target: str) -> list[str]:
        k, body = self.kernel, self.body
        shape = ", ".join(f"{name}={rule}" for name, rule in body.shape)
        lines = [
            f"kernel-forge generated {target} source (forge.emit, emitter version "
            f"{EMITTER_VERSION}); do not edit",
            f"kernel: {k.id} v{k.version}, entry point {k.entry_point}",
            f"semantic hash: {k.semantic_hash}",
            f"schedule: {self.schedule}",
            f"pattern: {body.kind} ({shape})",
            "IR:",
        ]
        lines += [f"  {text}" for text in k.body.pattern.summary()]
        return [f"// {line}".rstrip() for line in lines]

    def module(self) -> str:
        """The whole source: header, declarations, helpers and the entry point."""
        ops = used_ops(self.body)
        if self.d.target == "wgsl":
            return self._wgsl(ops)
        return self._cuda(ops)

    def _wgsl(self, ops) -> str:
        k = self.kernel
        out = self.header("WGSL")
        enables = (["f16"] if self.body.uses("f16") else []) + (
            ["subgroups"] if self.schedule.subgroups else []
        )
        if enables:
            out += [f"enable {', '.join(enables)};"]
        out += ["", "struct fg_Params {"]
        out += [f"    {name}: {dtype}," for name, dtype in k.uniform.fields] + ["}", ""]
        if self.vector_arrays:
            out.append(
                f"// {', '.join(self.vector_arrays)}: arrays of vectors, bound rounded "
                "up to whole vectors; a partial last chunk goes lane by lane"
            )
        for b in k.buffers:
            if b.access.value == "uniform":
                out.append(f"@group({b.group}) @binding({b.binding}) var<uniform> fg_p: fg_Params;")
            else:
                mode = "read" if b.access.value == "read" else "read_write"
                name = self.binding_names.get(b.name, b.name)
                width = self.vector_arrays.get(name)
                element = self.d.vector(b.element, width) if width else b.element
                out.append(
                    f"@group({b.group}) @binding({b.binding}) var<storage, {mode}> "
                    f"{name}: array<{element}>;"
                    + (f"  // buffer {b.name}" if name != b.name else "")
                )
        out += self._shared
        body = self.code.text()
        helpers = self.d.helpers(ops, body + "\n".join(self._shared))
        if helpers:
            out += ["", helpers.rstrip()]
        if self.definitions:
            out += ["", "\n\n".join(text.rstrip() for text in self.definitions)]
        x, y, z = self.schedule.workgroup_size
        out += [
            "",
            f"@compute @workgroup_size({x}, {y}, {z})",
            f"fn {k.entry_point}(@builtin(workgroup_id) fg_wid: vec3<u32>,",
            "        @builtin(num_workgroups) fg_nwg: vec3<u32>,",
            "        @builtin(local_invocation_id) fg_lid3: vec3<u32>,",
            "        @builtin(local_invocation_index) fg_lidx: u32"
            + (
                ",\n        @builtin(subgroup_invocation_id) fg_sgi: u32,"
                "\n        @builtin(subgroup_size) fg_sgs: u32,"
                "\n        @builtin(subgroup_id) fg_sgid: u32,"
                "\n        @builtin(num_subgroups) fg_nsg: u32"
                if self.schedule.subgroups
                else ""
            )
            + ") {",
        ]
        return "\n".join(out) + "\n" + body + "}\n"

    def _cuda(self, ops) -> str:
        k, d = self.kernel, self.d
        out = self.header("CUDA C")
        includes = d.includes(self.body.dtypes()) + self.includes
        if includes:
            out += [""] + includes
        structs = [d.vector_struct(*v) for v in sorted(self._vector_types)]
        if any(structs):
            out += [""] + [s for s in structs if s]
        out += ["", "struct __align__(16) fg_Params {"]
        out += [f"    {d.scalar(dtype)} {name};" for name, dtype in k.uniform.fields] + ["};"]
        helpers = d.helpers(ops)
        if helpers:
            out += ["", helpers.rstrip()]
        if self.definitions:
            out += ["", "\n\n".join(text.rstrip() for text in self.definitions)]
        params = []
        for b in k.buffers:  # those the entry body reads and writes, and the uniform
            if b.access.value != "uniform" and b.name not in self.decls:
                continue
            if b.access.value == "uniform":
                params.append("const fg_Params fg_p")
            else:
                const = "const " if b.access.value == "read" else ""
                params.append(f"{const}{d.scalar(b.element)}* __restrict__ {b.name}")
        x, y, z = self.schedule.workgroup_size
        bounds = f"{x * y * z}" + (f", {self.min_blocks}" if self.min_blocks > 1 else "")
        out += [
            "",
            f'extern "C" __global__ void __launch_bounds__({bounds}) {k.entry_point}(',
            "        " + ",\n        ".join(params) + ") {",
        ]
        lidx = (
            "threadIdx.x"
            + (f" + {x}u * threadIdx.y" if y > 1 else "")
            + (f" + {x * y}u * threadIdx.z" if z > 1 else "")
        )
        out += [f"    const unsigned int fg_lidx = {lidx};"]
        out += [f"    {decl}" for decl in self._shared]
        return "\n".join(out) + "\n" + self.code.text() + "}\n"


def used_ops(body) -> set[tuple[str, str]]:
    """(operation, dtype) pairs the body computes, for helpers and target checks (row
    reductions appear as ``"reduce"``)."""
    return {
        (node.op, node.dtype)
        for e in body.expressions()
        for node in walk(e)
        if node.op not in LEAVES
    }
