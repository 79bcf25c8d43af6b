"""Small copies of torchvision's image classifiers, built from the same blocks.

torchvision is not packaged for Debian bookworm, so each architecture is
rebuilt here from its published structure, at a width and depth that compile
in seconds: the blocks, their order and the ops they export to are the ones
torchvision's models use (depthwise and grouped convolutions, squeeze-excite,
channel shuffles, hard-swish, NHWC layer norms, dense concatenations,
stochastic depth and dropout in eval mode). Every model takes [N, 3, 64, 64]
images and returns [N, 10] logits.

build(name, seed) returns the model in eval mode, its batch norms given
non-trivial statistics (fresh ones are almost the identity).
"""

import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet  # noqa: E402

NUM_CLASSES = 10


def conv_bn(cin, cout, kernel, stride=1, groups=1, act=nn.ReLU6):
    layers = [nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


# ---------------------------------------------------------------------------------------------
# MobileNet v2 (torchvision.models.mobilenet_v2)
# ---------------------------------------------------------------------------------------------

class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, hidden, 1))
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self):
        super().__init__()
        # (expand, out, repeats, stride), torchvision's table scaled down.
        setting = [(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2)]
        layers = [conv_bn(3, 16, 3, 2)]
        cin = 16
        for t, c, n, s in setting:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 64, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, NUM_CLASSES))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------------------------------------
# MobileNet v3 small (torchvision.models.mobilenet_v3_small)
# ---------------------------------------------------------------------------------------------

class SqueezeExcitation(nn.Module):
    """torchvision.ops.SqueezeExcitation: pooled 1x1 convolutions gating the channels."""

    def __init__(self, channels, squeeze, act=nn.ReLU, scale=nn.Hardsigmoid):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)
        self.act = act()
        self.scale = scale()

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * self.scale(self.fc2(self.act(self.fc1(s))))


class V3Block(nn.Module):
    def __init__(self, cin, kernel, hidden, cout, use_se, act, stride):
        super().__init__()
        self.use_res = stride == 1 and cin == cout
        layers = []
        if hidden != cin:
            layers.append(conv_bn(cin, hidden, 1, act=act))
        layers.append(conv_bn(hidden, hidden, kernel, stride, groups=hidden, act=act))
        if use_se:
            layers.append(SqueezeExcitation(hidden, max(8, hidden // 4)))
        layers.append(conv_bn(hidden, cout, 1, act=None))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV3Small(nn.Module):
    def __init__(self):
        super().__init__()
        hs, re = nn.Hardswish, nn.ReLU
        self.features = nn.Sequential(
            conv_bn(3, 16, 3, 2, act=hs),
            V3Block(16, 3, 16, 16, True, re, 2),
            V3Block(16, 3, 48, 24, False, re, 2),
            V3Block(24, 3, 56, 24, False, re, 1),
            V3Block(24, 5, 64, 32, True, hs, 2),
            V3Block(32, 5, 96, 32, True, hs, 1),
            conv_bn(32, 96, 1, act=hs))
        self.classifier = nn.Sequential(nn.Linear(96, 128), nn.Hardswish(), nn.Dropout(0.2),
                                        nn.Linear(128, NUM_CLASSES))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------------------------------------
# EfficientNet b0 (torchvision.models.efficientnet_b0)
# ---------------------------------------------------------------------------------------------

class MBConv(nn.Module):
    def __init__(self, cin, cout, kernel, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, hidden, 1, act=nn.SiLU))
        layers += [conv_bn(hidden, hidden, kernel, stride, groups=hidden, act=nn.SiLU),
                   SqueezeExcitation(hidden, max(1, cin // 4), act=nn.SiLU, scale=nn.Sigmoid),
                   conv_bn(hidden, cout, 1, act=None)]
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        # Stochastic depth is the identity in eval mode.
        return x + self.block(x) if self.use_res else self.block(x)


class EfficientNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 16, 3, 2, act=nn.SiLU),
            MBConv(16, 8, 3, 1, 1),
            MBConv(8, 12, 3, 2, 6),
            MBConv(12, 12, 3, 1, 6),
            MBConv(12, 20, 5, 2, 6),
            conv_bn(20, 64, 1, act=nn.SiLU))
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, NUM_CLASSES))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------------------------------------
# ShuffleNet v2 (torchvision.models.shufflenet_v2_x0_5)
# ---------------------------------------------------------------------------------------------

def channel_shuffle(x, groups):
    n, c, h, w = x.shape
    x = x.view(n, groups, c // groups, h, w)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(n, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        branch = cout // 2
        if stride > 1:
            self.branch1 = nn.Sequential(
                conv_bn(cin, cin, 3, stride, groups=cin, act=None),
                conv_bn(cin, branch, 1, act=nn.ReLU))
        else:
            self.branch1 = nn.Sequential()
        cin2 = cin if stride > 1 else branch
        self.branch2 = nn.Sequential(
            conv_bn(cin2, branch, 1, act=nn.ReLU),
            conv_bn(branch, branch, 3, stride, groups=branch, act=None),
            conv_bn(branch, branch, 1, act=nn.ReLU))

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = torch.cat((x1, self.branch2(x2)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = conv_bn(3, 12, 3, 2, act=nn.ReLU)
        self.stage2 = nn.Sequential(ShuffleUnit(12, 24, 2), ShuffleUnit(24, 24, 1))
        self.stage3 = nn.Sequential(ShuffleUnit(24, 48, 2), ShuffleUnit(48, 48, 1))
        self.conv5 = conv_bn(48, 64, 1, act=nn.ReLU)
        self.fc = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(self.conv1(x), 3, 2, 1)
        x = self.conv5(self.stage3(self.stage2(x)))
        return self.fc(x.mean([2, 3]))


# ---------------------------------------------------------------------------------------------
# MnasNet (torchvision.models.mnasnet0_5)
# ---------------------------------------------------------------------------------------------

class MnasBlock(nn.Module):
    def __init__(self, cin, cout, kernel, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = cin == cout and stride == 1
        self.layers = nn.Sequential(
            conv_bn(cin, hidden, 1, act=nn.ReLU),
            conv_bn(hidden, hidden, kernel, stride, groups=hidden, act=nn.ReLU),
            conv_bn(hidden, cout, 1, act=None))

    def forward(self, x):
        return self.layers(x) + x if self.use_res else self.layers(x)


class MnasNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            conv_bn(3, 16, 3, 2, act=nn.ReLU),
            conv_bn(16, 16, 3, 1, groups=16, act=nn.ReLU),
            conv_bn(16, 8, 1, act=None),
            MnasBlock(8, 12, 3, 2, 3), MnasBlock(12, 12, 3, 1, 3),
            MnasBlock(12, 20, 5, 2, 3), MnasBlock(20, 20, 5, 1, 3),
            conv_bn(20, 64, 1, act=nn.ReLU))
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, NUM_CLASSES))

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))


# ---------------------------------------------------------------------------------------------
# ConvNeXt tiny (torchvision.models.convnext_tiny)
# ---------------------------------------------------------------------------------------------

class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.layer_scale = nn.Parameter(torch.rand(dim, 1, 1) * 0.5 + 0.5)

    def forward(self, x):
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.pwconv2(F.gelu(self.pwconv1(self.norm(y)))).permute(0, 3, 1, 2)
        return x + self.layer_scale * y


class ConvNeXt(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 4, 4), LayerNorm2d(16, eps=1e-6))
        self.stage1 = nn.Sequential(CNBlock(16), CNBlock(16))
        self.down = nn.Sequential(LayerNorm2d(16, eps=1e-6), nn.Conv2d(16, 32, 2, 2))
        self.stage2 = CNBlock(32)
        self.head = nn.Sequential(LayerNorm2d(32, eps=1e-6), nn.Flatten(1), nn.Linear(32, NUM_CLASSES))

    def forward(self, x):
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(F.adaptive_avg_pool2d(x, 1))


# ---------------------------------------------------------------------------------------------
# ResNeXt-style grouped bottleneck (torchvision.models.resnext50_32x4d, RegNet)
# ---------------------------------------------------------------------------------------------

class GroupedBottleneck(nn.Module):
    def __init__(self, cin, width, cout, groups, stride):
        super().__init__()
        self.conv1 = conv_bn(cin, width, 1, act=nn.ReLU)
        self.conv2 = conv_bn(width, width, 3, stride, groups=groups, act=nn.ReLU)
        self.conv3 = conv_bn(width, cout, 1, act=None)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = conv_bn(cin, cout, 1, stride, act=None)

    def forward(self, x):
        identity = x if self.down is None else self.down(x)
        return F.relu(self.conv3(self.conv2(self.conv1(x))) + identity)


class ResNeXt(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 2, act=nn.ReLU)
        self.layer1 = GroupedBottleneck(16, 32, 32, 8, 1)
        self.layer2 = GroupedBottleneck(32, 48, 48, 4, 2)
        self.fc = nn.Linear(48, NUM_CLASSES)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# ---------------------------------------------------------------------------------------------
# DenseNet (torchvision.models.densenet121)
# ---------------------------------------------------------------------------------------------

class DenseLayer(nn.Module):
    def __init__(self, cin, growth, bn_size):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, bn_size * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)

    def forward(self, features):
        x = torch.cat(features, 1)
        x = self.conv1(F.relu(self.norm1(x)))
        return self.conv2(F.relu(self.norm2(x)))


class DenseBlock(nn.Module):
    def __init__(self, layers, cin, growth, bn_size):
        super().__init__()
        self.layers = nn.ModuleList(DenseLayer(cin + i * growth, growth, bn_size) for i in range(layers))

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(features))
        return torch.cat(features, 1)


class DenseNet(nn.Module):
    def __init__(self):
        super().__init__()
        growth, bn_size = 8, 2
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 5, 2, 2, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.block1 = DenseBlock(3, 16, growth, bn_size)
        c = 16 + 3 * growth
        self.transition = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False),
                                        nn.AvgPool2d(2, 2))
        self.block2 = DenseBlock(2, c // 2, growth, bn_size)
        c = c // 2 + 2 * growth
        self.norm5 = nn.BatchNorm2d(c)
        self.classifier = nn.Linear(c, NUM_CLASSES)

    def forward(self, x):
        x = self.block2(self.transition(self.block1(self.stem(x))))
        x = F.relu(self.norm5(x))
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


MODELS = {
    "mobilenet_v2": MobileNetV2,
    "mobilenet_v3_small": MobileNetV3Small,
    "efficientnet": EfficientNet,
    "shufflenet_v2": ShuffleNetV2,
    "mnasnet": MnasNet,
    "convnext": ConvNeXt,
    "resnext": ResNeXt,
    "densenet": DenseNet,
}


def nontrivial(model):
    """torchvision's initialization, with random normalization parameters
    and statistics and default-initialized linear heads: as initialized,
    several models (zero ViT head, MobileNet/EfficientNet/MnasNet's small
    heads behind unit-variance norms) give outputs of 1e-14 to 1e-8, which
    any compiled graph would match."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0, 0.1)
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
            if isinstance(m, nn.Linear) and float(m.weight.std()) < 0.02:
                m.reset_parameters()
    return model


def build(name, seed=0):
    torch.manual_seed(seed)
    model = MODELS[name]()
    resnet.randomize_batch_norms(model)
    return model.eval()
