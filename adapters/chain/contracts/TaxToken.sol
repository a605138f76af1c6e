// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title TaxToken
/// @notice A devnet ERC-20 with the owner powers token screening looks for: `mint`, `blacklist`, `setSellFee`. A
///         transfer into a market (a pool the owner marks) is a sell and costs the seller `sellFeeBps` of the amount
///         on top, paid to the owner. The tax is charged on top, not deducted, because a Uniswap v3 pool checks that
///         its balance grew by the full amount and reverts otherwise: a deducting tax would make every sell revert.
/// @dev 18 decimals; the whole supply is minted to the deployer. Blacklisted accounts can neither send nor receive.
contract TaxToken {
    /// @notice ERC-20 token name.
    string public name;
    /// @notice ERC-20 token symbol.
    string public symbol;
    /// @notice Decimal places of an amount.
    uint8 public constant decimals = 18;
    /// @notice The owner: mints, blacklists, marks markets, sets the tax, and sells untaxed.
    address public immutable owner;
    /// @notice Total supply in base units.
    uint256 public totalSupply;
    /// @notice Tax on a sell, in basis points of the amount sold, charged on top.
    uint256 public sellFeeBps;
    /// @notice Accounts that can neither send nor receive.
    mapping(address => bool) public isBlacklisted;
    /// @notice Recipients a transfer to is a sell.
    mapping(address => bool) public isMarket;

    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;

    /// @notice ERC-20 transfer, also emitted by mint with `from` = 0.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20 approval.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    modifier onlyOwner() {
        require(msg.sender == owner, "TaxToken: caller is not the owner");
        _;
    }

    constructor(string memory name_, string memory symbol_, uint256 supply, uint256 sellFeeBps_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
        sellFeeBps = sellFeeBps_;
        totalSupply = supply;
        _balances[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    /// @notice Balance of `account` in base units.
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @notice Remaining amount `spender` may move from `holder`, in base units.
    function allowance(address holder, address spender) external view returns (uint256) {
        return _allowances[holder][spender];
    }

    /// @notice Moves `value` from the caller to `to`.
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Lets `spender` move up to `value` of the caller's tokens.
    function approve(address spender, uint256 value) external returns (bool) {
        _allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves `value` from `from` to `to` against the caller's allowance.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        require(value <= allowed, "ERC20: insufficient allowance");
        if (allowed != type(uint256).max) _allowances[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    /// @notice Creates `amount` base units for `to`.
    function mint(address to, uint256 amount) external onlyOwner {
        totalSupply += amount;
        _balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    /// @notice Stops `account` from sending or receiving.
    function blacklist(address account) external onlyOwner {
        isBlacklisted[account] = true;
    }

    /// @notice Lets `account` send and receive again.
    function unBlacklist(address account) external onlyOwner {
        isBlacklisted[account] = false;
    }

    /// @notice Marks `market` as a recipient a transfer to is a sell, or unmarks it.
    function setMarket(address market, bool marked) external onlyOwner {
        isMarket[market] = marked;
    }

    /// @notice Sets the sell tax, in basis points.
    function setSellFee(uint256 feeBps) external onlyOwner {
        sellFeeBps = feeBps;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(!isBlacklisted[from] && !isBlacklisted[to], "TaxToken: blacklisted");
        uint256 fee = isMarket[to] && from != owner ? (value * sellFeeBps) / 10_000 : 0;
        uint256 balance = _balances[from];
        require(value + fee <= balance, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = balance - value - fee;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
        if (fee > 0) {
            _balances[owner] += fee;
            emit Transfer(from, owner, fee);
        }
    }
}
