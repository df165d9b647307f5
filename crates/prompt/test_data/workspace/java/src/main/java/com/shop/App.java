package com.shop;

import com.shop.Cart;

public class App {
    public static void main(String[] args) {
        Cart cart = new Cart();
        cart.add(2);
    }
}
