#!/usr/bin/env bash
# Runs the README's video recipe as written (the ```sh block after "between two ffmpeg processes"),
# with its vbg path replaced by the binary given, on three sources: 10-bit 4:2:2 with PCM audio,
# 8-bit 4:4:4 with AAC audio, 4:2:0 without audio. Each output must be H.264 4:2:0 with the source's
# frame count, and have audio exactly when the source has, lasting the source's 0.24 s (±0.1 s: AAC
# adds its priming samples).
# Usage: .ci/video-recipe.sh VBG_BINARY   (needs ffmpeg and ffprobe)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
vbg="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

recipe="$(awk '/between two ffmpeg processes/ { found = 1 } found && /^```sh/ { inside = 1; next }
               inside && /^```/ { exit } inside { print }' "$repo/README.md")"
[ -n "$recipe" ] || { echo "video recipe: no recipe found in README.md"; exit 1; }
recipe="${recipe//.build\/release\/vbg/$vbg}"

# 6 frames at 25 fps: each frame takes about a second in a debug build of vbg.
make_source() {  # NAME PIXEL_FORMAT VIDEO_CODEC AUDIO_CODEC|none
    local audio=(-f lavfi -i sine=frequency=440:duration=0.24) codec=(-c:a "$4")
    if [ "$4" = none ]; then audio=(); codec=(-an); fi
    ffmpeg -v error -y -f lavfi -i testsrc2=size=160x120:rate=25:duration=0.24 "${audio[@]}" \
        -pix_fmt "$2" -c:v "$3" "${codec[@]}" -shortest "$work/$1"
}
probe() {  # FILE TYPE ENTRY: the entry of the first stream of TYPE (v or a), empty if none
    ffprobe -v error -count_frames -select_streams "$2:0" -show_entries "stream=$3" -of csv=p=0 "$1" | head -n 1
}

status=0
for source in "422p10.mkv yuv422p10le ffv1 pcm_s16le" "444.mp4 yuv444p libx264 aac" "420.mp4 yuv420p libx264 none"; do
    set -- $source
    make_source "$1" "$2" "$3" "$4"
    rm -rf "$work/run" && mkdir "$work/run" && cp "$work/$1" "$work/run/in.mp4"
    if ! (cd "$work/run" && bash -o pipefail -c "$recipe" 2>"$work/stderr"); then
        echo "video recipe: $1 ($2) failed:"; tail -n 5 "$work/stderr"; status=1; continue
    fi
    out="$work/run/out.mp4"
    frames_in="$(probe "$work/$1" v nb_read_frames)" frames_out="$(probe "$out" v nb_read_frames)"
    format="$(probe "$out" v codec_name,pix_fmt)"
    audio_in="$(probe "$work/$1" a codec_name)" audio_out="$(probe "$out" a codec_name,duration)"
    echo "video recipe: $1 ($2, audio ${audio_in:-none}): $frames_out of $frames_in frames, $format, audio ${audio_out:-none}"
    [ "$frames_out" = "$frames_in" ] && [ "$format" = "h264,yuv420p" ] || { echo "  wrong video"; status=1; }
    if [ -z "$audio_in" ]; then
        [ -z "$audio_out" ] || { echo "  audio where the source has none"; status=1; }
    else
        awk -v d="${audio_out#*,}" 'BEGIN { exit !(d + 0 > 0.14 && d + 0 < 0.34) }' || { echo "  audio missing or of the wrong length"; status=1; }
    fi
done
exit $status
