#!/usr/bin/env python3
"""Write Fixtures/backgrounds/rocket.png: the replacement background of the docs pictures and of
`vbg bench --pipeline` (see Fixtures/README.md).

  venv/bin/python Tools/make_background_image.py [--out Fixtures/backgrounds]

`skimage.data.rocket()` (640x427 RGB): the launch of DSCOVR on a Falcon 9, photographed by SpaceX
and released into the public domain. Written as is (8-bit RGB PNG via imageio), so the output is
byte-identical on every run with the versions in Tools/requirements.txt.
"""

import argparse
import os

import imageio.v3 as iio
from skimage import data

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "backgrounds"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rocket = data.rocket()
    assert rocket.shape == (427, 640, 3) and rocket.dtype.name == "uint8", rocket.shape
    path = os.path.join(args.out, "rocket.png")
    iio.imwrite(path, rocket)
    print(f"{path}: {rocket.shape[1]}x{rocket.shape[0]} RGB")


if __name__ == "__main__":
    main()
