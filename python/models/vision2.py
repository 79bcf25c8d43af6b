"""More small copies of torchvision's image classifiers (see vision.py).

vit (torchvision.models.vit_b_16: patch convolution, class token, position
embedding, pre-LN encoder blocks with nn.MultiheadAttention, head on the
class token), squeezenet (squeezenet1_1: fire modules, ceil-mode max pooling,
a convolutional classifier), vgg (vgg11: conv/ReLU stacks, max pooling,
adaptive average pooling, a dropout MLP), regnet (regnet_y: grouped
bottlenecks with squeeze-excitation), googlenet (inception blocks of four
branches concatenated). Every model takes [N, 3, 64, 64] images and returns
[N, 10] logits; build(name, seed) returns it in eval mode with non-trivial
batch-norm statistics.
"""

import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet  # noqa: E402

NUM_CLASSES = 10


class EncoderBlock(nn.Module):
    def __init__(self, dim, heads, mlp_dim):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim, eps=1e-6)
        self.self_attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Dropout(0.1),
                                 nn.Linear(mlp_dim, dim))

    def forward(self, x):
        y = self.ln_1(x)
        y, _ = self.self_attention(y, y, y, need_weights=False)
        x = x + y
        return x + self.mlp(self.ln_2(x))


class ViT(nn.Module):
    def __init__(self, image=64, patch=16, dim=32, heads=4, layers=2):
        super().__init__()
        self.patch = patch
        self.conv_proj = nn.Conv2d(3, dim, patch, patch)
        tokens = (image // patch) ** 2 + 1
        self.class_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embedding = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.layers = nn.Sequential(*[EncoderBlock(dim, heads, 2 * dim) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, NUM_CLASSES)

    def forward(self, x):
        n = x.shape[0]
        x = self.conv_proj(x)
        x = x.reshape(n, x.shape[1], -1).permute(0, 2, 1)
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)
        x = self.ln(self.layers(x + self.pos_embedding))
        return self.head(x[:, 0])


class Fire(nn.Module):
    def __init__(self, cin, squeeze, expand):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1x1 = nn.Conv2d(squeeze, expand, 1)
        self.expand3x3 = nn.Conv2d(squeeze, expand, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.squeeze(x), inplace=True)
        return torch.cat([F.relu(self.expand1x1(x)), F.relu(self.expand3x3(x))], 1)


class SqueezeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(16, 4, 8), Fire(16, 4, 8), nn.MaxPool2d(3, 2, ceil_mode=True), Fire(16, 8, 16))
        self.classifier = nn.Sequential(nn.Dropout(0.5), nn.Conv2d(32, NUM_CLASSES, 1),
                                        nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1))

    def forward(self, x):
        return torch.flatten(self.classifier(self.features(x)), 1)


class VGG(nn.Module):
    def __init__(self):
        super().__init__()
        layers, cin = [], 3
        for v in [8, "M", 16, "M", 16, 16, "M", 32, "M"]:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(cin, v, 3, padding=1), nn.ReLU(inplace=True)]
                cin = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(nn.Linear(32 * 4, 64), nn.ReLU(True), nn.Dropout(),
                                        nn.Linear(64, NUM_CLASSES))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


class SE(nn.Module):
    def __init__(self, c, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(c, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.fc2(F.relu(self.fc1(s))))


def conv_bn_relu(cin, cout, k, stride=1, groups=1, relu=True, eps=1e-5):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout, eps=eps)]
    if relu:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


class YBlock(nn.Module):
    def __init__(self, cin, cout, stride, group_width=8):
        super().__init__()
        self.a = conv_bn_relu(cin, cout, 1)
        self.b = conv_bn_relu(cout, cout, 3, stride, groups=cout // group_width)
        self.se = SE(cout, cin // 4)
        self.c = conv_bn_relu(cout, cout, 1, relu=False)
        self.proj = conv_bn_relu(cin, cout, 1, stride, relu=False) if stride != 1 or cin != cout else None

    def forward(self, x):
        identity = x if self.proj is None else self.proj(x)
        return F.relu(identity + self.c(self.se(self.b(self.a(x)))))


class RegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn_relu(3, 16, 3, 2)
        self.trunk = nn.Sequential(YBlock(16, 16, 1), YBlock(16, 32, 2), YBlock(32, 32, 1))
        self.fc = nn.Linear(32, NUM_CLASSES)

    def forward(self, x):
        x = self.trunk(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Inception(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, pool):
        super().__init__()
        self.branch1 = conv_bn_relu(cin, c1, 1, eps=1e-3)
        self.branch2 = nn.Sequential(conv_bn_relu(cin, c3r, 1, eps=1e-3),
                                     conv_bn_relu(c3r, c3, 3, eps=1e-3))
        self.branch3 = nn.Sequential(conv_bn_relu(cin, c5r, 1, eps=1e-3),
                                     conv_bn_relu(c5r, c5, 3, eps=1e-3))
        self.branch4 = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True),
                                     conv_bn_relu(cin, pool, 1, eps=1e-3))

    def forward(self, x):
        return torch.cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)


class GoogLeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = conv_bn_relu(3, 16, 7, 2, eps=1e-3)
        self.maxpool1 = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.inception3a = Inception(16, 8, 8, 16, 4, 8, 8)
        self.maxpool3 = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.inception4a = Inception(40, 16, 8, 16, 4, 8, 8)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(48, NUM_CLASSES)

    def forward(self, x):
        x = self.maxpool1(self.conv1(x))
        x = self.inception4a(self.maxpool3(self.inception3a(x)))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(self.dropout(x))


MODELS = {
    "vit": ViT,
    "squeezenet": SqueezeNet,
    "vgg": VGG,
    "regnet": RegNet,
    "googlenet": GoogLeNet,
}


def build(name, seed=0):
    torch.manual_seed(seed)
    model = MODELS[name]()
    resnet.randomize_batch_norms(model)
    return model.eval()
