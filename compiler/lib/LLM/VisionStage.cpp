//===- VisionStage.cpp - The vision tower and projector of a VLM as one stage --===//
//
// InternVL's extract_feature (modeling_internvl_chat.py) on one image: InternViT's patch embedding (a
// stride-p conv), the class token and the learned position embedding, the encoder layers (pre-norm
// LayerNorm, full attention with a scale of head_dim^-0.5, GELU MLP, both branches scaled by the layer
// scales ls1 / ls2), the last layer's patch features without the class token, the v2 pixel shuffle by
// downsample_ratio, then mlp1 (LayerNorm, Linear, GELU, Linear) into the language model's hidden size.
//
//===----------------------------------------------------------------------===//

#include "LlmStages.h"
#include "StageBuilder.h"

#include <cmath>

using namespace mlir;
using namespace tpuc;
using namespace tpuc::llm;

llvm::Expected<OwningOpRef<ModuleOp>> tpuc::llm::buildVisionStage(MLIRContext &context,
                                                                  const ModelConfig &config,
                                                                  const VisionWeights &w, NpzFile &file,
                                                                  llvm::StringRef weightPath) {
  const VisionConfig &v = *config.vision;
  StageBuilder s(context, "vit", &file, weightPath);
  const int64_t c = v.hiddenSize, p = v.patchSize, g = v.grid(), n = g * g, heads = v.numHeads,
                dim = c / heads;
  const int64_t r = g / v.tokenGrid(), t = v.imageTokens();
  auto i64 = [&](int64_t x) { return s.b().getI64IntegerAttr(x); };
  auto array = [&](llvm::ArrayRef<int64_t> x) { return s.b().getDenseI64ArrayAttr(x); };
  auto layerNorm = [&](Value x, const std::string &name, const std::vector<float> &weight,
                       const std::vector<float> &bias, double eps, int64_t rank) {
    int64_t width = static_cast<int64_t>(weight.size());
    return s.op("top.layernorm", name,
                {x, s.weight(name + ".weight", {width}, weight), s.weight(name + ".bias", {width}, bias)},
                {s.attr("axis", i64(rank - 1)), s.attr("eps", s.b().getF64FloatAttr(eps))});
  };
  auto gelu = [&](Value x, const std::string &name) { return s.op("top.gelu", name, {x}); };

  Value pixels = s.input("pixel_values", {1, 3, v.imageSize, v.imageSize}, s.f32());
  Value patches = s.op(
      "top.conv", "vision_model.embeddings.patch_embedding",
      {pixels, s.weight("vision_model.embeddings.patch_embedding.weight", {c, 3, p, p}, w.patchWeight),
       s.weight("vision_model.embeddings.patch_embedding.bias", {c}, w.patchBias)},
      {s.attr("kernel_shape", array({p, p})), s.attr("strides", array({p, p})),
       s.attr("pads", array({0, 0, 0, 0})), s.attr("dilations", array({1, 1})), s.attr("group", i64(1))});
  patches = s.reshape(patches, {1, c, n}, "vision_model.embeddings.patches");
  patches = s.op("top.permute", "vision_model.embeddings.patch_tokens", {patches},
                 {s.attr("order", array({0, 2, 1}))});
  Value cls = s.weight("vision_model.embeddings.class_embedding", {1, 1, c}, w.classEmbedding);
  Value x = s.op("top.concat", "vision_model.embeddings.tokens", {cls, patches}, {s.attr("axis", i64(1))});
  x = s.op("top.add", "vision_model.embeddings",
           {x, s.weight("vision_model.embeddings.position_embedding", {1, n + 1, c}, w.positionEmbedding)});

  for (size_t i = 0; i < w.layers.size(); ++i) {
    const VisionLayerWeights &l = w.layers[i];
    const std::string pre = "vision_model.encoder.layers." + std::to_string(i);
    auto bias = [](const std::optional<std::vector<float>> &b) { return b ? &*b : nullptr; };
    Value h = layerNorm(x, pre + ".norm1", l.norm1Weight, l.norm1Bias, v.layerNormEps, 3);
    Value q = s.reshape(s.linear(h, l.q, bias(l.qBias), pre + ".attn.q"), {1, n + 1, heads, dim},
                        pre + ".attn.q_heads");
    Value k = s.reshape(s.linear(h, l.k, bias(l.kBias), pre + ".attn.k"), {1, n + 1, heads, dim},
                        pre + ".attn.k_heads");
    Value vv = s.reshape(s.linear(h, l.v, bias(l.vBias), pre + ".attn.v"), {1, n + 1, heads, dim},
                         pre + ".attn.v_heads");
    Value att = s.op("top.attention", pre + ".attn.attention", {q, k, vv, s.none()},
                     {s.attr("scale", s.b().getF64FloatAttr(1.0 / std::sqrt(static_cast<double>(dim))))});
    att = s.reshape(att, {1, n + 1, c}, pre + ".attn.merge_heads");
    Value o = s.linear(att, l.proj, &l.projBias, pre + ".attn.proj");
    o = s.op("top.mul", pre + ".attn_scaled", {o, s.weight(pre + ".ls1", {c}, l.ls1)});
    x = s.op("top.add", pre + ".attn_residual", {x, o});
    h = layerNorm(x, pre + ".norm2", l.norm2Weight, l.norm2Bias, v.layerNormEps, 3);
    h = gelu(s.linear(h, l.fc1, &l.fc1Bias, pre + ".mlp.fc1"), pre + ".mlp.act");
    h = s.linear(h, l.fc2, &l.fc2Bias, pre + ".mlp.fc2");
    h = s.op("top.mul", pre + ".mlp_scaled", {h, s.weight(pre + ".ls2", {c}, l.ls2)});
    x = s.op("top.add", pre + ".hidden_out", {x, h});
  }

  // The patch tokens on their grid, then InternVL's pixel shuffle (ps_version v2).
  x = s.op("top.slice", "vit_patches", {x},
           {s.attr("offset", array({0, 1, 0})), s.attr("steps", array({1, 1, 1})),
            s.attr("ends", array({1, n + 1, c}))});
  x = s.reshape(x, {1, g, g / r, c * r}, "pixel_shuffle.columns");
  x = s.op("top.permute", "pixel_shuffle.swap", {x}, {s.attr("order", array({0, 2, 1, 3}))});
  x = s.reshape(x, {1, g / r, g / r, c * r * r}, "pixel_shuffle.rows");
  x = s.op("top.permute", "pixel_shuffle", {x}, {s.attr("order", array({0, 2, 1, 3}))});
  x = s.reshape(x, {1, t, c * r * r}, "pixel_shuffle.tokens");

  x = layerNorm(x, "mlp1.0", w.projectorNormWeight, w.projectorNormBias, 1e-5, 3);
  x = gelu(s.linear(x, w.projector1, &w.projector1Bias, "mlp1.1"), "mlp1.2");
  x = s.linear(x, w.projector2, &w.projector2Bias, "image_embeds");
  return s.finish({x});
}
