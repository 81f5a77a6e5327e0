"""oar.vision.ops: Paddle's detection and region ops (paddle.vision.ops).

roi_align, psroi_pool, roi_pool, deform_conv2d and yolo_loss are compositions of
differentiable oar ops (gradients reach x, and offset/mask/weight for deform_conv2d);
nms, matrix_nms, prior_box, yolo_box, distribute_fpn_proposals and generate_proposals
select or generate boxes on the host; box_coder is written in oar ops; read_file and
decode_jpeg use PIL.
"""

from ..models._utils import ConvNormActivation  # noqa: F401
from ._deform import DeformConv2D, deform_conv2d
from ._detect import (
    box_coder,
    distribute_fpn_proposals,
    generate_proposals,
    matrix_nms,
    nms,
    prior_box,
    yolo_box,
)
from ._io import decode_jpeg, read_file
from ._roi import PSRoIPool, RoIAlign, RoIPool, psroi_pool, roi_align, roi_pool
from ._yolo_loss import yolo_loss

__all__ = [
    "yolo_loss",
    "yolo_box",
    "prior_box",
    "box_coder",
    "deform_conv2d",
    "DeformConv2D",
    "distribute_fpn_proposals",
    "generate_proposals",
    "read_file",
    "decode_jpeg",
    "roi_pool",
    "RoIPool",
    "psroi_pool",
    "PSRoIPool",
    "roi_align",
    "RoIAlign",
    "nms",
    "matrix_nms",
]
