package main

import (
	"fmt"
	"sync"
)

func main() {
	fmt.Println("hello from go")
	var wg sync.WaitGroup
	ch := make(chan int, 100)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			s := 0
			for j := 0; j < 100000; j++ {
				s += j % (n + 1)
			}
			ch <- s
		}(i)
	}
	wg.Wait()
	close(ch)
	total := 0
	for v := range ch {
		total += v
	}
	fmt.Println("total", total)
}
