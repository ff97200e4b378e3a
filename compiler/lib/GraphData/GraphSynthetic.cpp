//===- GraphSynthetic.cpp - Generated graphs and IR for tests and the bench ===//

#include "tpuc/GraphData/GraphSynthetic.h"

#include <sstream>

namespace tpuc::graph {

Graph syntheticGraph(size_t ops, bool named) {
  static const char *kinds[] = {"top.conv", "top.batchnorm", "top.relu",      "top.conv", "top.batchnorm",
                                "top.relu", "top.conv",      "top.batchnorm", "top.add",  "top.relu"};
  static const char *categories[] = {"conv",       "norm", "activation", "conv",        "norm",
                                     "activation", "conv", "norm",       "elementwise", "activation"};
  Graph g;
  g.title = "synthetic-" + std::to_string(ops);
  size_t blocks = std::max<size_t>(1, ops / 10);
  NodeId previousOut = kNoNode;
  for (size_t b = 0; b < blocks; ++b) {
    NodeId blockIn = previousOut;
    for (int i = 0; i < 10; ++i) {
      Node n;
      n.id = static_cast<NodeId>(g.nodes.size());
      n.op = kinds[i];
      n.category = categories[i];
      n.name = named ? "/stage" + std::to_string(b / 50) + "/block" + std::to_string(b % 50) + "/op" +
                           std::to_string(i)
                     : "op" + std::to_string(n.id);
      TensorInfo t;
      t.shape = {1, 64, 56, 56};
      t.dtype = "f32";
      t.type = "tensor<1x64x56x56xf32>";
      n.results.push_back(t);
      if (i == 0 || i == 3 || i == 6)
        n.keyAttributes = {"kernel_shape 3x3"};
      n.flops = (i == 0 || i == 3 || i == 6) ? 231211008 : 200704;
      if (previousOut != kNoNode) {
        g.edges.push_back({previousOut, n.id, 0, 0, t.label()});
        n.operands.push_back({previousOut, 0, g.nodes[previousOut].name, t, false});
      }
      if (i == 8 && blockIn != kNoNode) { // the residual
        g.edges.push_back({blockIn, n.id, 0, 1, t.label()});
        n.operands.push_back({blockIn, 0, g.nodes[blockIn].name, t, false});
      }
      previousOut = n.id;
      g.nodes.push_back(std::move(n));
    }
  }
  buildClusters(g);
  return g;
}

std::string transformerTopIR(const TransformerShape &s) {
  std::ostringstream o;
  const std::string L = std::to_string(s.seqLength);
  auto t = [](std::initializer_list<int> dims, const char *dtype = "f32") {
    std::string out = "tensor<";
    for (int d : dims)
      out += std::to_string(d) + "x";
    return out + dtype + ">";
  };
  const int q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
  const std::string h3 = t({1, s.seqLength, s.hidden});
  int v = 0;
  auto next = [&] { return "%v" + std::to_string(v++); };
  auto weight = [&](const std::string &name, const std::string &type) {
    std::string r = next();
    o << "    " << r << " = top.weight \"" << name << "\" : " << type << " loc(\"" << name << "\")\n";
    return r;
  };
  o << "module @qwen2_shaped attributes {top.state = #top.state<TOP_F32>, top.weight_file = "
       "\"qwen2_weights.npz\"} {\n"
    << "  func.func @main(%ids: " << t({1, s.seqLength}, "i64")
    << ", %mask: " << t({1, 1, s.seqLength, s.seqLength}) << ") -> " << t({1, s.seqLength, s.vocab})
    << " {\n";
  std::string ids = next(), mask = next();
  o << "    " << ids << " = top.input %ids : " << t({1, s.seqLength}, "i64") << " -> "
    << t({1, s.seqLength}, "i64") << " loc(\"input_ids\")\n";
  o << "    " << mask << " = top.input %mask : " << t({1, 1, s.seqLength, s.seqLength}) << " -> "
    << t({1, 1, s.seqLength, s.seqLength}) << " loc(\"attention_mask\")\n";
  std::string none = next();
  o << "    " << none << " = top.none : none loc(\"none\")\n";
  std::string table = weight("model.embed_tokens.weight", t({s.vocab, s.hidden}));
  std::string cos = weight("rope.cos", t({s.seqLength, s.headDim})),
              sin = weight("rope.sin", t({s.seqLength, s.headDim}));
  std::string h = next();
  o << "    " << h << " = top.gather " << table << ", " << ids << " {axis = 0 : i64} : ("
    << t({s.vocab, s.hidden}) << ", " << t({1, s.seqLength}, "i64") << ") -> " << h3
    << " loc(\"model.embed_tokens\")\n";
  auto op = [&](const std::string &text, const std::string &loc) {
    std::string r = next();
    o << "    " << r << " = " << text << " loc(\"" << loc << "\")\n";
    return r;
  };
  auto matmul = [&](const std::string &x, int in, int out, const std::string &name, bool bias) {
    std::string w = weight(name + ".weight", t({in, out}));
    std::string b = bias ? weight(name + ".bias", t({out})) : none;
    return op("top.matmul " + x + ", " + w + ", " + b + " : (" + t({1, s.seqLength, in}) + ", " +
                  t({in, out}) + ", " + (bias ? t({out}) : std::string("none")) + ") -> " +
                  t({1, s.seqLength, out}),
              name);
  };
  for (int layer = 0; layer < s.layers; ++layer) {
    const std::string p = "model.layers." + std::to_string(layer) + ".";
    std::string g1 = weight(p + "input_layernorm.weight", t({s.hidden}));
    std::string x = op("top.rmsnorm " + h + ", " + g1 + " {eps = 1.0e-06 : f64} : (" + h3 + ", " +
                           t({s.hidden}) + ") -> " + h3,
                       p + "input_layernorm");
    std::string qp = matmul(x, s.hidden, q, p + "self_attn.q_proj", true);
    std::string kp = matmul(x, s.hidden, kv, p + "self_attn.k_proj", true);
    std::string vp = matmul(x, s.hidden, kv, p + "self_attn.v_proj", true);
    auto reshape = [&](const std::string &in, int width, int heads, const std::string &name) {
      return op("top.reshape " + in + " : " + t({1, s.seqLength, width}) + " -> " +
                    t({1, s.seqLength, heads, s.headDim}),
                name);
    };
    std::string q4 = reshape(qp, q, s.heads, p + "self_attn.q_reshape");
    std::string k4 = reshape(kp, kv, s.kvHeads, p + "self_attn.k_reshape");
    std::string v4 = reshape(vp, kv, s.kvHeads, p + "self_attn.v_reshape");
    auto rope = [&](const std::string &in, int heads, const std::string &name) {
      std::string ty = t({1, s.seqLength, heads, s.headDim});
      return op("top.rope " + in + ", " + cos + ", " + sin + " : (" + ty + ", " +
                    t({s.seqLength, s.headDim}) + ", " + t({s.seqLength, s.headDim}) + ") -> " + ty,
                name);
    };
    std::string qr = rope(q4, s.heads, p + "self_attn.q_rope");
    std::string kr = rope(k4, s.kvHeads, p + "self_attn.k_rope");
    std::string att =
        op("top.attention " + qr + ", " + kr + ", " + v4 + ", " + mask + " {scale = 0.125 : f64} : (" +
               t({1, s.seqLength, s.heads, s.headDim}) + ", " + t({1, s.seqLength, s.kvHeads, s.headDim}) +
               ", " + t({1, s.seqLength, s.kvHeads, s.headDim}) + ", " + t({1, 1, s.seqLength, s.seqLength}) +
               ") -> " + t({1, s.seqLength, s.heads, s.headDim}),
           p + "self_attn.attention");
    std::string a3 = op("top.reshape " + att + " : " + t({1, s.seqLength, s.heads, s.headDim}) + " -> " +
                            t({1, s.seqLength, q}),
                        p + "self_attn.o_reshape");
    std::string oproj = matmul(a3, q, s.hidden, p + "self_attn.o_proj", false);
    std::string h1 =
        op("top.add " + h + ", " + oproj + " : (" + h3 + ", " + h3 + ") -> " + h3, p + "attn_residual");
    std::string g2 = weight(p + "post_attention_layernorm.weight", t({s.hidden}));
    std::string y = op("top.rmsnorm " + h1 + ", " + g2 + " {eps = 1.0e-06 : f64} : (" + h3 + ", " +
                           t({s.hidden}) + ") -> " + h3,
                       p + "post_attention_layernorm");
    std::string gate = matmul(y, s.hidden, s.intermediate, p + "mlp.gate_proj", false);
    std::string up = matmul(y, s.hidden, s.intermediate, p + "mlp.up_proj", false);
    std::string i3 = t({1, s.seqLength, s.intermediate});
    std::string act = op("top.silu " + gate + " : " + i3 + " -> " + i3, p + "mlp.act_fn");
    std::string mul =
        op("top.mul " + act + ", " + up + " : (" + i3 + ", " + i3 + ") -> " + i3, p + "mlp.mul");
    std::string down = matmul(mul, s.intermediate, s.hidden, p + "mlp.down_proj", false);
    h = op("top.add " + h1 + ", " + down + " : (" + h3 + ", " + h3 + ") -> " + h3, p + "mlp_residual");
  }
  std::string gn = weight("model.norm.weight", t({s.hidden}));
  std::string n = op("top.rmsnorm " + h + ", " + gn + " {eps = 1.0e-06 : f64} : (" + h3 + ", " +
                         t({s.hidden}) + ") -> " + h3,
                     "model.norm");
  std::string logits = matmul(n, s.hidden, s.vocab, "lm_head", false);
  o << "    return " << logits << " : " << t({1, s.seqLength, s.vocab}) << " loc(\"output\")\n  }\n}\n";
  (void)L;
  return o.str();
}

} // namespace tpuc::graph
