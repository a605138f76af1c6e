// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface ISimToken {
    function balanceOf(address account) external view returns (uint256);
    function approve(address spender, uint256 value) external returns (bool);
}

interface ISimQuoterV2 {
    struct QuoteExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint256 amountIn;
        uint24 fee;
        uint160 sqrtPriceLimitX96;
    }

    function quoteExactInputSingle(QuoteExactInputSingleParams memory params)
        external
        returns (uint256 amountOut, uint160 sqrtPriceX96After, uint32 initializedTicksCrossed, uint256 gasEstimate);
}

interface ISimSwapRouter02 {
    struct ExactInputSingleParams {
        address tokenIn;
        address tokenOut;
        uint24 fee;
        address recipient;
        uint256 amountIn;
        uint256 amountOutMinimum;
        uint160 sqrtPriceLimitX96;
    }

    function exactInputSingle(ExactInputSingleParams calldata params) external payable returns (uint256 amountOut);
}

/// @title SafetySimulator
/// @notice Never deployed: token screening runs its runtime code with eth_call at a scratch address (a state
///         override), holding `amountIn` of the base token (a second override, of the base token's balance slot).
///         It buys the token through SwapRouter02, then sells half of what it received back, and reports what each
///         leg was quoted by QuoterV2 (which knows the pool, not the token's own rules), what moved, and why a leg
///         reverted. Selling half leaves room for a tax charged on top of the amount sold.
contract SafetySimulator {
    /// @notice What a simulation saw; amounts in base units.
    struct Outcome {
        /// @notice QuoterV2's output for the buy.
        uint256 buyQuote;
        /// @notice Tokens the buy actually delivered (balance change).
        uint256 bought;
        /// @notice Whether the buy went through.
        bool buyOk;
        /// @notice Revert data of the buy, when it reverted.
        bytes buyError;
        /// @notice Tokens handed to the router for the sell.
        uint256 sellAmount;
        /// @notice QuoterV2's output for the sell.
        uint256 sellQuote;
        /// @notice Tokens the sell took from the seller (balance change), tax included.
        uint256 debited;
        /// @notice Base tokens the sell actually delivered (balance change).
        uint256 received;
        /// @notice Whether the sell went through.
        bool sellOk;
        /// @notice Revert data of the sell (or of its approval), when it reverted.
        bytes sellError;
    }

    /// @notice Buys `token` with `amountIn` of `baseToken` in the `fee` pool, then sells half of it back.
    function simulate(
        address router,
        address quoter,
        address baseToken,
        address token,
        uint24 fee,
        uint256 amountIn
    ) external returns (Outcome memory outcome) {
        outcome.buyQuote = _quote(quoter, baseToken, token, amountIn, fee);
        ISimToken(baseToken).approve(router, amountIn);
        uint256 before = ISimToken(token).balanceOf(address(this));
        try ISimSwapRouter02(router).exactInputSingle(_params(baseToken, token, fee, amountIn)) {
            outcome.buyOk = true;
        } catch (bytes memory reason) {
            outcome.buyError = reason;
            return outcome;
        }
        outcome.bought = ISimToken(token).balanceOf(address(this)) - before;
        outcome.sellAmount = outcome.bought / 2;
        outcome.sellQuote = _quote(quoter, token, baseToken, outcome.sellAmount, fee);
        try ISimToken(token).approve(router, outcome.sellAmount) {} catch (bytes memory reason) {
            outcome.sellError = reason;
            return outcome;
        }
        uint256 tokensBefore = ISimToken(token).balanceOf(address(this));
        uint256 baseBefore = ISimToken(baseToken).balanceOf(address(this));
        try ISimSwapRouter02(router).exactInputSingle(_params(token, baseToken, fee, outcome.sellAmount)) {
            outcome.sellOk = true;
        } catch (bytes memory reason) {
            outcome.sellError = reason;
            return outcome;
        }
        outcome.debited = tokensBefore - ISimToken(token).balanceOf(address(this));
        outcome.received = ISimToken(baseToken).balanceOf(address(this)) - baseBefore;
    }

    function _quote(address quoter, address tokenIn, address tokenOut, uint256 amountIn, uint24 fee)
        private
        returns (uint256 amountOut)
    {
        try ISimQuoterV2(quoter).quoteExactInputSingle(
            ISimQuoterV2.QuoteExactInputSingleParams(tokenIn, tokenOut, amountIn, fee, 0)
        ) returns (uint256 out, uint160, uint32, uint256) {
            amountOut = out;
        } catch {
            amountOut = 0;
        }
    }

    function _params(address tokenIn, address tokenOut, uint24 fee, uint256 amountIn)
        private
        view
        returns (ISimSwapRouter02.ExactInputSingleParams memory)
    {
        return ISimSwapRouter02.ExactInputSingleParams(tokenIn, tokenOut, fee, address(this), amountIn, 0, 0);
    }
}
