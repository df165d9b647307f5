package com.shop;

public class Cart {
    private int total;

    public void add(int amount) {
        total += amount;
    }

    public int total() {
        return total;
    }
}
