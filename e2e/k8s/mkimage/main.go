// Command mkimage writes a container image as a tarball (the docker-archive
// format `ctr images import` reads) without a registry or a Docker engine:
// one layer of the files named, on an empty base, with an entrypoint and a
// user. e2e/k8s/run.sh makes rightsize's image (the Dockerfile's recipe:
// a static binary run as user 65532) and the pod sandbox's pause image with
// it.
//
//	mkimage -o rightsize.tar -tag rightsize:e2e -user 65532:65532 \
//	    -entrypoint /usr/local/bin/rightsize \
//	    -file ./rightsize:/usr/local/bin/rightsize:0755 \
//	    -file /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:0644
//
// Every image also gets /etc/passwd and /etc/group naming root and nonroot
// (65532, as distroless does), /tmp (1777) and /home/nonroot (65532's, the
// working directory).
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

type files []string

func (f *files) String() string     { return strings.Join(*f, ",") }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	var (
		out, tag, user, entry string
		add                   files
	)
	flag.StringVar(&out, "o", "", "the image tarball to write")
	flag.StringVar(&tag, "tag", "", "the image's name and tag (rightsize:e2e)")
	flag.StringVar(&user, "user", "", "the user the entrypoint runs as (65532:65532)")
	flag.StringVar(&entry, "entrypoint", "", "the entrypoint, one path")
	flag.Var(&add, "file", "SRC:DST[:MODE] to put in the layer (repeat)")
	flag.Parse()
	if err := run(out, tag, user, entry, add); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

func run(out, tag, user, entry string, add []string) error {
	if out == "" || tag == "" || entry == "" {
		return fmt.Errorf("give -o, -tag and -entrypoint")
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	layerTar, err := layer(add)
	if err != nil {
		return err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil })
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = "amd64", "linux"
	cf.Config = v1.Config{Entrypoint: []string{entry}, User: user, WorkingDir: "/home/nonroot",
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/nonroot"}}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	return tarball.WriteToFile(out, ref, img)
}

// layer is the tar of the image's one layer: the base directories and
// account files, then each SRC:DST[:MODE].
func layer(add []string) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	mtime := time.Unix(0, 0)
	dir := func(path string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: mtime})
	}
	file := func(path string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path, Mode: mode, Size: int64(len(data)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	for _, d := range []string{"etc", "etc/ssl", "etc/ssl/certs", "usr", "usr/local", "usr/local/bin", "home"} {
		if err := dir(d, 0o755, 0); err != nil {
			return nil, err
		}
	}
	if err := dir("tmp", 0o1777, 0); err != nil {
		return nil, err
	}
	if err := dir("home/nonroot", 0o700, 65532); err != nil {
		return nil, err
	}
	if err := file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")); err != nil {
		return nil, err
	}
	if err := file("etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")); err != nil {
		return nil, err
	}
	for _, a := range add {
		parts := strings.Split(a, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("-file %q: want SRC:DST[:MODE]", a)
		}
		mode := int64(0o644)
		if len(parts) == 3 {
			m, err := strconv.ParseInt(parts[2], 8, 64)
			if err != nil {
				return nil, fmt.Errorf("-file %q: mode %q is not octal", a, parts[2])
			}
			mode = m
		}
		data, err := os.ReadFile(parts[0])
		if err != nil {
			return nil, err
		}
		if err := file(strings.TrimPrefix(parts[1], "/"), mode, data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
