package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	// 10 MB, but 2 MB where x64emu runs many times slower (X64EMU_TEST_FEWER_ROUNDS,
	// which both runs of the test see: under qemu-user, or a sanitizer).
	size := 10 << 20
	if os.Getenv("X64EMU_TEST_FEWER_ROUNDS") != "" {
		size = 2 << 20
	}
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i * 7)
	}
	key := make([]byte, 16)
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	nonce := make([]byte, 12)
	sealed := gcm.Seal(nil, nonce, data, nil)
	fmt.Printf("sha256(data) %x\n", sha256.Sum256(data))
	fmt.Printf("sha256(gcm)  %x\n", sha256.Sum256(sealed))
	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	fmt.Println("slept at least 50ms:", time.Since(start) >= 50*time.Millisecond)
	if len(os.Args) > 1 {
		out, err := exec.Command(os.Args[1]).Output()
		fmt.Printf("exec: %q %v\n", out, err)
	}
}
