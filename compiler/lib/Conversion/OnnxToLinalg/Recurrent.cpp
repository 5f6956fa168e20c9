//===- Recurrent.cpp - Bodies of RNN, GRU and LSTM ------------------------===//
//
// The recurrent ops on the host: each direction is an scf.for over the
// time steps whose tensor iter_args carry the hidden state (and LSTM's cell
// state, and the Y sequence being written); a step is two
// linalg.matmul_transpose_b products (X_t W^T, H_{t-1} R^T) and
// linalg.generic gate arithmetic with the node's activations (ORT's
// formulas), clip, GRU's linear_before_reset and LSTM's input_forget and
// peepholes.
//
// sequence_lens (a constant or a runtime tensor): a reverse direction
// gathers each batch entry's first len steps in reverse order, runs forward,
// and scatters Y back the same way; steps at or past an entry's length keep
// its state and write zeros into Y (ORT's semantics). Runtime lengths are
// clamped to [0, seq_length] so a bad value cannot index out of bounds.
//
// graph.host has one result, so Y, Y_h and Y_c are one op each (`output`),
// each recomputing the recurrence. The importer
// (Frontend/ImportRecurrent.cpp) checks the node and resolves its
// activations and their alpha/beta.
//
//===----------------------------------------------------------------------===//
#include "HostBody.h"

#include "systole/Conversion/HostRecurrence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace lw = systole::conversion::lowering;

namespace systole::conversion {

SmallVector<NamedAttribute> recurrenceParams(Builder &b, const Recurrence &rc,
                                             int64_t output) {
  SmallVector<Attribute> names;
  SmallVector<float> alphas, betas;
  for (const auto &dir : rc.acts)
    for (const Activation &a : dir) {
      names.push_back(b.getStringAttr(a.name));
      alphas.push_back(a.alpha);
      betas.push_back(a.beta);
    }
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> p{
      b.getNamedAttr("layout", i64(rc.batchMajor ? 1 : 0)),
      b.getNamedAttr("direction", b.getStringAttr(rc.dirs == 2 ? "bidirectional"
                                                  : rc.reverse ? "reverse"
                                                               : "forward")),
      b.getNamedAttr("linear_before_reset",
                     b.getBoolAttr(rc.linearBeforeReset)),
      b.getNamedAttr("input_forget", b.getBoolAttr(rc.inputForget)),
      b.getNamedAttr("activations", b.getArrayAttr(names)),
      b.getNamedAttr("activation_alpha", b.getDenseF32ArrayAttr(alphas)),
      b.getNamedAttr("activation_beta", b.getDenseF32ArrayAttr(betas)),
      b.getNamedAttr("b", i64(rc.b)),
      b.getNamedAttr("initial_h", i64(rc.h0)),
      b.getNamedAttr("initial_c", i64(rc.c0)),
      b.getNamedAttr("p", i64(rc.p)),
      b.getNamedAttr("sequence_lens", i64(rc.lensArg)),
      b.getNamedAttr("lens", b.getDenseI64ArrayAttr(rc.lens)),
      b.getNamedAttr("output", i64(output))};
  if (rc.clip)
    p.push_back(b.getNamedAttr("clip", b.getF32FloatAttr(*rc.clip)));
  return p;
}

namespace onnx {

namespace recurrent {
namespace {

/// Builders over the element type of the node inside the graph.host body.
struct Body {
  OpBuilder &b;
  Location loc;
  Type elem;
  const Recurrence &rc;

  Value cst(OpBuilder &nb, double v) const {
    return nb.create<arith::ConstantOp>(loc, nb.getFloatAttr(elem, v));
  }
  Value zeros(ArrayRef<int64_t> shape) const {
    Value e = b.create<tensor::EmptyOp>(loc, shape, elem);
    return b.create<linalg::FillOp>(loc, ValueRange{cst(b, 0.0)}, ValueRange{e})
        .getResult(0);
  }
  /// v[offsets : offsets + sizes], rank-reduced to `shape`.
  Value slice(Value v, ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> shape) const {
    SmallVector<OpFoldResult> sz, st;
    for (int64_t s : sizes) {
      sz.push_back(b.getIndexAttr(s));
      st.push_back(b.getIndexAttr(1));
    }
    return b.create<tensor::ExtractSliceOp>(
        loc, RankedTensorType::get(shape, elem), v, offsets, sz, st);
  }
  Value slice(Value v, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> shape) const {
    SmallVector<OpFoldResult> off;
    for (int64_t o : offsets)
      off.push_back(b.getIndexAttr(o));
    return slice(v, off, sizes, shape);
  }
  Value insert(Value src, Value dest, ArrayRef<OpFoldResult> offsets,
               ArrayRef<int64_t> sizes) const {
    SmallVector<OpFoldResult> sz, st;
    for (int64_t s : sizes) {
      sz.push_back(b.getIndexAttr(s));
      st.push_back(b.getIndexAttr(1));
    }
    return b.create<tensor::InsertSliceOp>(loc, src, dest, offsets, sz, st);
  }
  Value insert(Value src, Value dest, ArrayRef<int64_t> offsets,
               ArrayRef<int64_t> sizes) const {
    SmallVector<OpFoldResult> off;
    for (int64_t o : offsets)
      off.push_back(b.getIndexAttr(o));
    return insert(src, dest, off, sizes);
  }
  /// x [M, K] times w [N, K] transposed: [M, N].
  Value matmulT(Value x, Value w) const {
    Value init = zeros({shapeOf(x)[0], shapeOf(w)[0]});
    return b
        .create<linalg::MatmulTransposeBOp>(loc, ValueRange{x, w},
                                            ValueRange{init})
        .getResult(0);
  }
  Value transpose(Value v, ArrayRef<int64_t> perm) const {
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(shapeOf(v)[p]);
    Value init = b.create<tensor::EmptyOp>(loc, shape, elem);
    return b.create<linalg::TransposeOp>(loc, v, init, perm).getResult()[0];
  }
  Value ew(ArrayRef<int64_t> shape, ValueRange ins, lw::BodyFn fn) const {
    return lw::elementwise(b, loc, shape, ins, fn, elem);
  }

  // Scalar arithmetic for the gate bodies.
  Value add(OpBuilder &nb, Value x, Value y) const {
    return nb.create<arith::AddFOp>(loc, x, y);
  }
  Value mul(OpBuilder &nb, Value x, Value y) const {
    return nb.create<arith::MulFOp>(loc, x, y);
  }
  Value sub(OpBuilder &nb, Value x, Value y) const {
    return nb.create<arith::SubFOp>(loc, x, y);
  }
  Value clip(OpBuilder &nb, Value x) const {
    if (!rc.clip)
      return x;
    x = nb.create<arith::MaximumFOp>(loc, x, cst(nb, -*rc.clip));
    return nb.create<arith::MinimumFOp>(loc, x, cst(nb, *rc.clip));
  }
  Value select(OpBuilder &nb, arith::CmpFPredicate p, Value x, Value y, Value t,
               Value f) const {
    Value c = nb.create<arith::CmpFOp>(loc, p, x, y);
    return nb.create<arith::SelectOp>(loc, c, t, f);
  }
  Value sigmoid(OpBuilder &nb, Value x) const {
    Value e = nb.create<math::ExpOp>(loc, nb.create<arith::NegFOp>(loc, x));
    return nb.create<arith::DivFOp>(loc, cst(nb, 1.0),
                                    add(nb, cst(nb, 1.0), e));
  }
  /// ONNX's activation functions for recurrent ops (ORT's formulas).
  Value activate(OpBuilder &nb, const Activation &a, Value x) const {
    using P = arith::CmpFPredicate;
    Value zero = cst(nb, 0.0), one = cst(nb, 1.0);
    Value alpha = cst(nb, a.alpha), beta = cst(nb, a.beta);
    const std::string &n = a.name;
    if (n == "tanh")
      return nb.create<math::TanhOp>(loc, x);
    if (n == "sigmoid")
      return sigmoid(nb, x);
    if (n == "relu")
      return select(nb, P::OGT, x, zero, x, zero);
    if (n == "affine")
      return add(nb, mul(nb, alpha, x), beta);
    if (n == "leakyrelu")
      return select(nb, P::OGE, x, zero, x, mul(nb, alpha, x));
    if (n == "thresholdedrelu")
      return select(nb, P::OGT, x, alpha, x, zero);
    if (n == "scaledtanh")
      return mul(nb, alpha,
                 nb.create<math::TanhOp>(loc, mul(nb, beta, x)).getResult());
    if (n == "hardsigmoid") {
      Value v = add(nb, mul(nb, alpha, x), beta);
      v = nb.create<arith::MaximumFOp>(loc, v, zero);
      return nb.create<arith::MinimumFOp>(loc, v, one);
    }
    if (n == "elu") {
      Value e = sub(nb, nb.create<math::ExpOp>(loc, x), one);
      return select(nb, P::OGE, x, zero, x, mul(nb, alpha, e));
    }
    if (n == "softsign")
      return nb.create<arith::DivFOp>(
          loc, x, add(nb, one, nb.create<math::AbsFOp>(loc, x)));
    // softplus
    return nb.create<math::LogOp>(loc,
                                  add(nb, nb.create<math::ExpOp>(loc, x), one));
  }
};

/// One direction's weights: W [G*H, I], R [G*H, H], biases [G*H] (null when
/// the node has no B), peepholes [3H] (null without P).
struct Weights {
  Value w, r, wb, rb, p;
  const std::vector<Activation> *acts;
};

/// Per-step state of one direction: h [B, H], c [B, H] (LSTM) and, when Y is
/// wanted, y [S, B, H].
struct State {
  Value h, c, y;
};

/// The gates of one time step: the next hidden (and cell) state.
State step(const Body &bd, const Weights &wt, Value xt, Value h, Value c) {
  const Recurrence &rc = bd.rc;
  int64_t nb = rc.batch, hs = rc.hidden, gh = rc.gates * hs;
  const std::vector<Activation> &act = *wt.acts;
  SmallVector<int64_t> bh = {nb, hs};
  auto gate = [&](Value v, int64_t g, int64_t count = 1) {
    return bd.slice(v, ArrayRef<int64_t>{0, g * hs}, {nb, count * hs},
                    {nb, count * hs});
  };
  auto vec = [&](Value v, int64_t g, int64_t count = 1) {
    return bd.slice(v, ArrayRef<int64_t>{g * hs}, {count * hs}, {count * hs});
  };
  Value xw = bd.matmulT(xt, wt.w);

  if (rc.cell == Cell::RNN || rc.cell == Cell::LSTM) {
    // pre = X_t W^T + H R^T + Wb + Rb over every gate at once.
    Value hr = bd.matmulT(h, wt.r);
    SmallVector<Value> ins = {xw, hr};
    if (wt.wb)
      ins.append({wt.wb, wt.rb});
    Value pre = bd.ew({nb, gh}, ins, [&](OpBuilder &b, Location, ValueRange s) {
      Value v = bd.add(b, s[0], s[1]);
      if (s.size() > 2)
        v = bd.add(b, v, bd.add(b, s[2], s[3]));
      return v;
    });
    if (rc.cell == Cell::RNN) {
      Value hn = bd.ew(bh, {pre}, [&](OpBuilder &b, Location, ValueRange s) {
        return bd.activate(b, act[0], bd.clip(b, s[0]));
      });
      return {hn, Value(), Value()};
    }
    // LSTM gates i, o, f, c; peepholes i, o, f.
    SmallVector<Value> cins = {gate(pre, 0), gate(pre, 2), gate(pre, 3), c};
    if (wt.p)
      cins.append({vec(wt.p, 0), vec(wt.p, 2)});
    Value cn = bd.ew(bh, cins, [&](OpBuilder &b, Location, ValueRange s) {
      Value gi = s[0], gf = s[1];
      if (s.size() > 4) {
        gi = bd.add(b, gi, bd.mul(b, s[4], s[3]));
        gf = bd.add(b, gf, bd.mul(b, s[5], s[3]));
      }
      Value i = bd.activate(b, act[0], bd.clip(b, gi));
      Value f = rc.inputForget ? bd.sub(b, bd.cst(b, 1.0), i)
                               : bd.activate(b, act[0], bd.clip(b, gf));
      Value g = bd.activate(b, act[1], bd.clip(b, s[2]));
      return bd.add(b, bd.mul(b, f, s[3]), bd.mul(b, i, g));
    });
    SmallVector<Value> hins = {gate(pre, 1), cn};
    if (wt.p)
      hins.push_back(vec(wt.p, 1));
    Value hn = bd.ew(bh, hins, [&](OpBuilder &b, Location, ValueRange s) {
      Value go = s[0];
      if (s.size() > 2)
        go = bd.add(b, go, bd.mul(b, s[2], s[1]));
      Value o = bd.activate(b, act[0], bd.clip(b, go));
      return bd.mul(b, o, bd.activate(b, act[2], s[1]));
    });
    return {hn, cn, Value()};
  }

  // GRU gates z, r, h.
  Value rzr =
      bd.slice(wt.r, ArrayRef<int64_t>{0, 0}, {2 * hs, hs}, {2 * hs, hs});
  Value rh = bd.slice(wt.r, ArrayRef<int64_t>{2 * hs, 0}, {hs, hs}, {hs, hs});
  Value hzr = bd.matmulT(h, rzr);
  auto zrGate = [&](int64_t g) {
    SmallVector<Value> ins = {gate(xw, g), gate(hzr, g)};
    if (wt.wb)
      ins.append({vec(wt.wb, g), vec(wt.rb, g)});
    return bd.ew(bh, ins, [&](OpBuilder &b, Location, ValueRange s) {
      Value v = bd.add(b, s[0], s[1]);
      if (s.size() > 2)
        v = bd.add(b, v, bd.add(b, s[2], s[3]));
      return bd.activate(b, act[0], bd.clip(b, v));
    });
  };
  Value z = zrGate(0), r = zrGate(1);
  Value ht;
  SmallVector<Value> ins = {gate(xw, 2)};
  if (!rc.linearBeforeReset) {
    // h~ = g(X_t Wh^T + (r . H) Rh^T + Rbh + Wbh)
    Value rhp = bd.ew(bh, {r, h}, [&](OpBuilder &b, Location, ValueRange s) {
      return bd.mul(b, s[0], s[1]);
    });
    ins.push_back(bd.matmulT(rhp, rh));
    if (wt.wb)
      ins.append({vec(wt.wb, 2), vec(wt.rb, 2)});
    ht = bd.ew(bh, ins, [&](OpBuilder &b, Location, ValueRange s) {
      Value v = bd.add(b, s[0], s[1]);
      if (s.size() > 2)
        v = bd.add(b, v, bd.add(b, s[3], s[2]));
      return bd.activate(b, act[1], bd.clip(b, v));
    });
  } else {
    // h~ = g(X_t Wh^T + Wbh + r . (H Rh^T + Rbh))
    ins.append({r, bd.matmulT(h, rh)});
    if (wt.wb)
      ins.append({vec(wt.wb, 2), vec(wt.rb, 2)});
    ht = bd.ew(bh, ins, [&](OpBuilder &b, Location, ValueRange s) {
      Value x = s[0], hr = s[2];
      if (s.size() > 3) {
        x = bd.add(b, x, s[3]);
        hr = bd.add(b, hr, s[4]);
      }
      Value v = bd.add(b, x, bd.mul(b, s[1], hr));
      return bd.activate(b, act[1], bd.clip(b, v));
    });
  }
  // H = (1 - z) . h~ + z . H
  Value hn = bd.ew(bh, {z, ht, h}, [&](OpBuilder &b, Location, ValueRange s) {
    Value keep = bd.sub(b, bd.cst(b, 1.0), s[0]);
    return bd.add(b, bd.mul(b, keep, s[1]), bd.mul(b, s[0], s[2]));
  });
  return {hn, Value(), Value()};
}

/// The batch entry's time index for step t of a reversed sequence:
/// len - 1 - t inside its length, t past it (an involution).
Value reversedIndex(OpBuilder &b, Location loc, Value t, Value len) {
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value rev =
      b.create<arith::SubIOp>(loc, b.create<arith::SubIOp>(loc, len, one), t);
  Value inside =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, t, len);
  return b.create<arith::SelectOp>(loc, inside, rev, t);
}

/// Batch entry `bi`'s sequence length, clamped to [0, seq].
Value lengthOf(OpBuilder &b, Location loc, Value lens, Value bi, int64_t seq) {
  Value len = b.create<arith::IndexCastOp>(
      loc, b.getIndexType(), b.create<tensor::ExtractOp>(loc, lens, bi));
  len = b.create<arith::MaxSIOp>(loc, len,
                                 b.create<arith::ConstantIndexOp>(loc, 0));
  return b.create<arith::MinSIOp>(loc, len,
                                  b.create<arith::ConstantIndexOp>(loc, seq));
}

/// v [S, B, F] with each batch entry's first len steps in reverse order.
Value reverseSteps(const Body &bd, Value v, Value lens) {
  OpBuilder &b = bd.b;
  Location loc = bd.loc;
  auto shape = shapeOf(v);
  MLIRContext *ctx = b.getContext();
  Value init = b.create<tensor::EmptyOp>(loc, shape, bd.elem);
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
          SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(3, ctx)},
          iters,
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value t = nb.create<linalg::IndexOp>(l, 0);
            Value bi = nb.create<linalg::IndexOp>(l, 1);
            Value f = nb.create<linalg::IndexOp>(l, 2);
            Value len = lengthOf(nb, l, lens, bi, shape[0]);
            Value src = reversedIndex(nb, l, t, len);
            nb.create<linalg::YieldOp>(l,
                                       ValueRange{nb.create<tensor::ExtractOp>(
                                           l, v, ValueRange{src, bi, f})});
          })
      .getResult(0);
}

/// Runs one direction over the seq-major input xs [S, B, I]: the final h, c
/// and, if `wantY`, Y [S, B, H] of this direction in time order.
State runDirection(const Body &bd, const Weights &wt, Value xs, Value h0,
                   Value c0, Value lens, bool reverse, bool wantY) {
  const Recurrence &rc = bd.rc;
  OpBuilder &b = bd.b;
  Location loc = bd.loc;
  if (reverse)
    xs = reverseSteps(bd, xs, lens);
  SmallVector<Value> init = {h0};
  if (c0)
    init.push_back(c0);
  if (wantY)
    init.push_back(bd.zeros({rc.seq, rc.batch, rc.hidden}));
  Value lb = b.create<arith::ConstantIndexOp>(loc, 0);
  Value ub = b.create<arith::ConstantIndexOp>(loc, rc.seq);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, one, init,
      [&](OpBuilder &lbld, Location l, Value t, ValueRange it) {
        Body inner{lbld, l, bd.elem, rc};
        Value h = it[0], c = c0 ? it[1] : Value();
        Value xt = inner.slice(xs,
                               ArrayRef<OpFoldResult>{t, lbld.getIndexAttr(0),
                                                      lbld.getIndexAttr(0)},
                               {1, rc.batch, rc.input}, {rc.batch, rc.input});
        State s = step(inner, wt, xt, h, c);
        Value yt = s.h;
        if (rc.partial) {
          // Entries whose sequence ended keep their state and output zeros.
          auto masked = [&](Value next, Value prev, bool zero) {
            SmallVector<int64_t> shape = {rc.batch, rc.hidden};
            Value initT = lbld.create<tensor::EmptyOp>(l, shape, bd.elem);
            MLIRContext *ctx = lbld.getContext();
            auto id = AffineMap::getMultiDimIdentityMap(2, ctx);
            SmallVector<utils::IteratorType> iters(
                2, utils::IteratorType::parallel);
            return lbld
                .create<linalg::GenericOp>(
                    l, TypeRange{initT.getType()}, ValueRange{next, prev},
                    ValueRange{initT}, SmallVector<AffineMap>{id, id, id},
                    iters,
                    [&](OpBuilder &nb, Location gl, ValueRange a) {
                      Value bi = nb.create<linalg::IndexOp>(gl, 0);
                      Value len = lengthOf(nb, gl, lens, bi, rc.seq);
                      Value live = nb.create<arith::CmpIOp>(
                          gl, arith::CmpIPredicate::slt, t, len);
                      Value other = zero ? inner.cst(nb, 0.0) : a[1];
                      nb.create<linalg::YieldOp>(
                          gl, ValueRange{nb.create<arith::SelectOp>(
                                  gl, live, a[0], other)});
                    })
                .getResult(0);
          };
          yt = masked(s.h, h, /*zero=*/true);
          s.h = masked(s.h, h, /*zero=*/false);
          if (c)
            s.c = masked(s.c, c, /*zero=*/false);
        }
        // One-shot bufferization wants each yielded state in its iter_arg's
        // buffer: copy it there (the old state has been read by now).
        auto into = [&](Value v, Value iterArg) {
          return lbld.create<linalg::CopyOp>(l, v, iterArg).getResult(0);
        };
        SmallVector<Value> out = {into(s.h, h)};
        if (c)
          out.push_back(into(s.c, c));
        if (wantY)
          out.push_back(
              inner.insert(yt, it.back(),
                           ArrayRef<OpFoldResult>{t, lbld.getIndexAttr(0),
                                                  lbld.getIndexAttr(0)},
                           {1, rc.batch, rc.hidden}));
        lbld.create<scf::YieldOp>(l, out);
      });
  State s;
  s.h = loop.getResult(0);
  if (c0)
    s.c = loop.getResult(1);
  if (wantY) {
    s.y = loop.getResults().back();
    if (reverse)
      s.y = reverseSteps(bd, s.y, lens);
  }
  return s;
}

/// Output `k` (0: Y, 1: Y_h, 2: Y_c) of the node from the graph.host
/// region's arguments.
Value buildOutput(const Body &bd, ValueRange args, int k) {
  const Recurrence &rc = bd.rc;
  OpBuilder &b = bd.b;
  Location loc = bd.loc;
  int64_t S = rc.seq, B = rc.batch, H = rc.hidden, I = rc.input;
  int64_t gh = rc.gates * H;
  Value xs = args[rc.x];
  if (rc.batchMajor)
    xs = bd.transpose(xs, {1, 0, 2});
  Value lens = rc.lensArg >= 0
                   ? args[rc.lensArg]
                   : b.create<arith::ConstantOp>(
                         loc, DenseIntElementsAttr::get(
                                  RankedTensorType::get({B}, b.getI64Type()),
                                  ArrayRef<int64_t>(rc.lens)));
  // A [dirs, B, H] (layout 0) or [B, dirs, H] (layout 1) state's direction d.
  auto stateOf = [&](Value v, int64_t d) {
    return rc.batchMajor
               ? bd.slice(v, ArrayRef<int64_t>{0, d, 0}, {B, 1, H}, {B, H})
               : bd.slice(v, ArrayRef<int64_t>{d, 0, 0}, {1, B, H}, {B, H});
  };
  SmallVector<int64_t> outShape;
  if (k == 0)
    outShape = rc.batchMajor ? SmallVector<int64_t>{B, S, rc.dirs, H}
                             : SmallVector<int64_t>{S, rc.dirs, B, H};
  else
    outShape = rc.batchMajor ? SmallVector<int64_t>{B, rc.dirs, H}
                             : SmallVector<int64_t>{rc.dirs, B, H};
  Value out = b.create<tensor::EmptyOp>(loc, outShape, bd.elem);
  for (int64_t d = 0; d < rc.dirs; ++d) {
    Weights wt;
    wt.w =
        bd.slice(args[rc.w], ArrayRef<int64_t>{d, 0, 0}, {1, gh, I}, {gh, I});
    wt.r =
        bd.slice(args[rc.r], ArrayRef<int64_t>{d, 0, 0}, {1, gh, H}, {gh, H});
    if (rc.b >= 0) {
      wt.wb = bd.slice(args[rc.b], ArrayRef<int64_t>{d, 0}, {1, gh}, {gh});
      wt.rb = bd.slice(args[rc.b], ArrayRef<int64_t>{d, gh}, {1, gh}, {gh});
    }
    if (rc.p >= 0)
      wt.p = bd.slice(args[rc.p], ArrayRef<int64_t>{d, 0}, {1, 3 * H}, {3 * H});
    wt.acts = &rc.acts[d];
    Value h0 = rc.h0 >= 0 ? stateOf(args[rc.h0], d) : bd.zeros({B, H});
    Value c0;
    if (rc.cell == Cell::LSTM)
      c0 = rc.c0 >= 0 ? stateOf(args[rc.c0], d) : bd.zeros({B, H});
    bool reverse = rc.reverse || d == 1;
    State s = runDirection(bd, wt, xs, h0, c0, lens, reverse, k == 0);
    if (k == 0) {
      if (rc.batchMajor)
        out = bd.insert(bd.transpose(s.y, {1, 0, 2}), out,
                        ArrayRef<int64_t>{0, 0, d, 0}, {B, S, 1, H});
      else
        out = bd.insert(s.y, out, ArrayRef<int64_t>{0, d, 0, 0}, {S, 1, B, H});
      continue;
    }
    Value v = k == 1 ? s.h : s.c;
    out = rc.batchMajor
              ? bd.insert(v, out, ArrayRef<int64_t>{0, d, 0}, {B, 1, H})
              : bd.insert(v, out, ArrayRef<int64_t>{d, 0, 0}, {1, B, H});
  }
  return out;
}

/// The Recurrence the params and the operands' shapes describe.
llvm::Expected<Recurrence> recurrenceOf(const Params &p, ValueRange args) {
  Recurrence rc;
  rc.cell = p.op() == "RNN"   ? Cell::RNN
            : p.op() == "GRU" ? Cell::GRU
                              : Cell::LSTM;
  rc.gates = rc.cell == Cell::RNN ? 1 : rc.cell == Cell::GRU ? 3 : 4;
  SYSTOLE_PARAM(layout, p.i64("layout"));
  SYSTOLE_PARAM(direction, p.str("direction"));
  SYSTOLE_PARAM(linearBeforeReset, p.flag("linear_before_reset"));
  SYSTOLE_PARAM(inputForget, p.flag("input_forget"));
  SYSTOLE_PARAM(alphas, p.f32s("activation_alpha"));
  SYSTOLE_PARAM(betas, p.f32s("activation_beta"));
  SYSTOLE_PARAM(lens, p.i64s("lens"));
  if (args.size() < 3)
    return p.fail("expects X, W and R");
  auto xs = shapeOf(args[0]), ws = shapeOf(args[1]), rs = shapeOf(args[2]);
  if (xs.size() != 3 || ws.size() != 3 || rs.size() != 3 ||
      (layout != 0 && layout != 1))
    return p.fail("expects 3-D X, W and R and layout 0 or 1");
  rc.batchMajor = layout == 1;
  rc.seq = rc.batchMajor ? xs[1] : xs[0];
  rc.batch = rc.batchMajor ? xs[0] : xs[1];
  rc.input = xs[2];
  rc.hidden = rs[2];
  rc.dirs = direction == "bidirectional" ? 2 : 1;
  rc.reverse = direction == "reverse";
  if (ws[0] != rc.dirs || ws[1] != rc.gates * rc.hidden)
    return p.fail("W does not match the direction and the hidden size");
  rc.linearBeforeReset = linearBeforeReset;
  rc.inputForget = inputForget;
  if (p.has("clip")) {
    SYSTOLE_PARAM(clip, p.f64("clip"));
    rc.clip = float(clip);
  }
  std::pair<const char *, int *> operands[] = {{"b", &rc.b},
                                               {"initial_h", &rc.h0},
                                               {"initial_c", &rc.c0},
                                               {"p", &rc.p},
                                               {"sequence_lens", &rc.lensArg}};
  for (auto [name, field] : operands) {
    SYSTOLE_PARAM(index, p.i64(name));
    if (index != -1 && (index < 3 || index >= int64_t(args.size())))
      return p.fail("operand index '" + llvm::Twine(name) +
                    "' is out of range");
    *field = int(index);
  }
  if (rc.lensArg < 0 && int64_t(lens.size()) != rc.batch)
    return p.fail("'lens' needs one entry per batch entry");
  rc.lens.assign(lens.begin(), lens.end());
  rc.partial = rc.lensArg >= 0 ||
               llvm::any_of(rc.lens, [&](int64_t l) { return l != rc.seq; });
  auto names = llvm::dyn_cast_or_null<ArrayAttr>(p.attr("activations"));
  size_t perDir = rc.cell == Cell::RNN ? 1 : rc.cell == Cell::GRU ? 2 : 3;
  if (!names || names.size() != perDir * rc.dirs ||
      alphas.size() != names.size() || betas.size() != names.size())
    return p.fail("expects " + llvm::Twine(perDir * rc.dirs) +
                  " activations, each with its alpha and beta");
  rc.acts.resize(rc.dirs);
  for (size_t i = 0; i < names.size(); ++i) {
    auto name = llvm::dyn_cast<StringAttr>(names[i]);
    if (!name)
      return p.fail("activations must be strings");
    rc.acts[i / perDir].push_back({name.str(), alphas[i], betas[i]});
  }
  return rc;
}

llvm::Expected<Value> recurrentBody(OpBuilder &b, Location loc, ValueRange args,
                                    Type result, const Params &p) {
  SYSTOLE_PARAM(rc, recurrenceOf(p, args));
  SYSTOLE_PARAM(output, p.i64("output"));
  if (output < 0 || output > (rc.cell == Cell::LSTM ? 2 : 1))
    return p.fail("output must be 0 (Y), 1 (Y_h) or, for LSTM, 2 (Y_c)");
  Body bd{b, loc, elementOf(args[0]), rc};
  return buildOutput(bd, args, int(output));
}

} // namespace
} // namespace recurrent

void registerRecurrentBodies(llvm::StringMap<HostBodyFn> &table) {
  for (const char *op : {"RNN", "GRU", "LSTM"})
    table[op] = recurrent::recurrentBody;
}

} // namespace onnx
} // namespace systole::conversion
